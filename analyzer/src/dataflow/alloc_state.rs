//! Allocation state per root along each path: before its allocation, allocated,
//! released, escaped (returned, stored, passed on) or leaked. A state is the set of
//! states some path may be in, joined by union at merges and iterated to a fixpoint
//! around loops.

use crate::ir::{BlockId, BodyId, EscapeKind, FnIr, Op, RootId, RootOrigin, Stmt, ValueId};

use super::PointsTo;

/// The set of states a root may be in, as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AllocState(pub u8);

impl AllocState {
    pub const UNALLOCATED: AllocState = AllocState(1);
    pub const ALLOCATED: AllocState = AllocState(2);
    pub const RELEASED: AllocState = AllocState(4);
    pub const ESCAPED: AllocState = AllocState(8);
    pub const LEAKED: AllocState = AllocState(16);

    pub fn may_be(self, s: AllocState) -> bool {
        self.0 & s.0 != 0
    }

    pub fn union(self, other: AllocState) -> AllocState {
        AllocState(self.0 | other.0)
    }

    /// `released | escaped` and the like, for dumps.
    pub fn describe(self) -> String {
        let names = [
            (Self::UNALLOCATED, "unallocated"),
            (Self::ALLOCATED, "allocated"),
            (Self::RELEASED, "released"),
            (Self::ESCAPED, "escaped"),
            (Self::LEAKED, "leaked"),
        ];
        let parts: Vec<&str> = names
            .iter()
            .filter(|(s, _)| self.may_be(*s))
            .map(|(_, n)| *n)
            .collect();
        if parts.is_empty() {
            "unreached".into()
        } else {
            parts.join(" | ")
        }
    }
}

/// The state of every root at the entry of every block of one body.
#[derive(Clone, Debug, Default)]
pub struct AllocStates {
    /// `entry[block][root]`; all-zero (unreached) for blocks no path reaches.
    pub entry: Vec<Vec<AllocState>>,
}

fn transfer(state: &mut [AllocState], stmt: &Stmt, pt: &PointsTo) {
    let set = |v: ValueId, to: AllocState, state: &mut [AllocState]| {
        let roots = pt.roots(v);
        let strong = roots.len() == 1;
        for r in roots {
            if let Some(s) = state.get_mut(r.0 as usize) {
                *s = if strong { to } else { s.union(to) };
            }
        }
    };
    match &stmt.op {
        Op::Alloc { root, .. } => {
            if let Some(s) = state.get_mut(root.0 as usize) {
                *s = AllocState::ALLOCATED;
            }
        }
        Op::Release { value, .. } => set(*value, AllocState::RELEASED, state),
        Op::AssumeNull { value } => set(*value, AllocState::UNALLOCATED, state),
        Op::Escape { value, how } => {
            let to = match how {
                EscapeKind::Leaked(_) => AllocState::LEAKED,
                _ => AllocState::ESCAPED,
            };
            set(*value, to, state)
        }
        _ => {}
    }
}

impl AllocStates {
    pub fn compute(ir: &FnIr, body: BodyId, pt: &PointsTo) -> AllocStates {
        let Some(b) = ir.bodies.get(body.0 as usize) else {
            return AllocStates::default();
        };
        let initial: Vec<AllocState> = ir
            .roots
            .iter()
            .map(|r| match r.origin {
                // A closure body starts with its function's memory already allocated.
                RootOrigin::Alloc if body.0 == 0 => AllocState::UNALLOCATED,
                _ => AllocState::ALLOCATED,
            })
            .collect();
        let n = b.blocks.len();
        let mut entry = vec![vec![AllocState::default(); ir.roots.len()]; n];
        if n == 0 {
            return AllocStates { entry };
        }
        entry[0] = initial;
        let mut work = vec![0usize];
        let mut queued = vec![false; n];
        queued[0] = true;
        while let Some(k) = work.pop() {
            queued[k] = false;
            let mut state = entry[k].clone();
            for stmt in &b.blocks[k].stmts {
                transfer(&mut state, stmt, pt);
            }
            for s in b.blocks[k].term.successors() {
                let s = s.0 as usize;
                let Some(target) = entry.get_mut(s) else {
                    continue;
                };
                let mut changed = false;
                for (t, x) in target.iter_mut().zip(&state) {
                    let joined = t.union(*x);
                    changed |= joined != *t;
                    *t = joined;
                }
                if changed && !queued[s] {
                    queued[s] = true;
                    work.push(s);
                }
            }
        }
        AllocStates { entry }
    }

    /// The state of `root` just before statement `stmt` of `block`.
    pub fn before(
        &self,
        ir: &FnIr,
        body: BodyId,
        block: BlockId,
        stmt: usize,
        pt: &PointsTo,
    ) -> Vec<AllocState> {
        let mut state = self
            .entry
            .get(block.0 as usize)
            .cloned()
            .unwrap_or_default();
        if let Some(b) = ir
            .bodies
            .get(body.0 as usize)
            .and_then(|b| b.blocks.get(block.0 as usize))
        {
            for s in b.stmts.iter().take(stmt) {
                transfer(&mut state, s, pt);
            }
        }
        state
    }

    /// The state of every root where `block` ends (before its terminator).
    pub fn at_end(
        &self,
        ir: &FnIr,
        body: BodyId,
        block: BlockId,
        pt: &PointsTo,
    ) -> Vec<AllocState> {
        let len = ir
            .bodies
            .get(body.0 as usize)
            .and_then(|b| b.blocks.get(block.0 as usize))
            .map_or(0, |b| b.stmts.len());
        self.before(ir, body, block, len, pt)
    }

    /// The state of `root` at the end of `block`.
    pub fn root_at_end(
        &self,
        ir: &FnIr,
        body: BodyId,
        block: BlockId,
        root: RootId,
        pt: &PointsTo,
    ) -> AllocState {
        self.at_end(ir, body, block, pt)
            .get(root.0 as usize)
            .copied()
            .unwrap_or_default()
    }
}
