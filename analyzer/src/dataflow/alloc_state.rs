//! Allocation state per root along each path: before its allocation, allocated,
//! released, escaped (returned, stored, passed on) or leaked. A state is the set of
//! states some path may be in, joined by union at merges and iterated to a fixpoint
//! around loops.
//!
//! The union over paths forgets which branches a path took, so two `if need { .. }` on
//! one flag look like four paths. [`feasible_path`] answers the questions the memory
//! lints ask ("can a path from this allocation reach an exit without a release?")
//! by walking concrete paths that take the same side of every branch on one unchanged
//! flag, so correlated branches do not produce paths the program cannot run.

use std::collections::HashSet;

use crate::ir::{
    Block, BlockId, BodyId, EscapeKind, FnIr, Op, RootOrigin, Stmt, Terminator, ValueId, ValueKind,
};

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
        Op::Alloc { root, .. } | Op::Load { root, .. } => {
            if let Some(s) = state.get_mut(root.0 as usize) {
                *s = AllocState::ALLOCATED;
            }
        }
        Op::Release { value, .. } => set(*value, AllocState::RELEASED, state),
        Op::AssumeNull { value } => set(*value, AllocState::UNALLOCATED, state),
        Op::Escape { value, how } => {
            let to = match how {
                EscapeKind::Leaked { .. } => AllocState::LEAKED,
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
}

/// The side taken at each stable flag so far, sorted by flag.
type Decisions = Vec<(ValueId, usize)>;

/// Bound on flags × blocks for finding the sides taken before a search starts.
const MAX_DECIDED_WORK: usize = 4_000_000;

/// Blocks visited by one [`feasible_path`] search before it gives up.
pub const MAX_PATH_STEPS: usize = 20_000;

/// What a path search does when it reaches a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Keep walking this path.
    Continue,
    /// This path is of no interest past here (the memory was released, re-allocated).
    Prune,
    /// The path the search looks for ends here.
    Found,
}

/// Where a found path ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathEnd {
    /// At statement `index` of `block`.
    Stmt { block: BlockId, index: usize },
    /// At the `return` terminator of `block`.
    Exit { block: BlockId },
}

/// The answer of a path search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathAnswer {
    /// A path with the property: where it ends, and the blocks it runs through from
    /// the start block to the end block.
    Found(PathEnd, Vec<BlockId>),
    /// No feasible path has the property.
    None,
    /// The search ran out of steps ([`MAX_PATH_STEPS`]).
    GaveUp,
}

/// Searches body `body` for a feasible path that starts at statement `start_index` of
/// `start_block` and ends where `at_stmt` says [`Step::Found`] or at a return for which
/// `at_exit` is true. A path takes the same side at every two-way branch on one scalar
/// that is never reassigned and is tested outside loops (such a flag has one value
/// per call); panics and `unreachable!` end no path.
pub fn feasible_path(
    ir: &FnIr,
    body: BodyId,
    start_block: BlockId,
    start_index: usize,
    at_stmt: impl FnMut(BlockId, usize, &Stmt) -> Step,
    at_exit: impl FnMut(BlockId, &Block) -> bool,
) -> PathAnswer {
    PathSearch::new(ir, body).run(start_block, start_index, at_stmt, at_exit)
}

/// One body prepared for many [`feasible_path`] searches: its stable flags are found
/// once.
#[derive(Debug)]
pub struct PathSearch<'a> {
    blocks: &'a [Block],
    stable: HashSet<ValueId>,
}

impl<'a> PathSearch<'a> {
    pub fn new(ir: &'a FnIr, body: BodyId) -> PathSearch<'a> {
        let blocks = ir
            .bodies
            .get(body.0 as usize)
            .map_or(&[][..], |b| b.blocks.as_slice());
        PathSearch {
            blocks,
            stable: stable_conditions(ir, blocks),
        }
    }

    /// [`feasible_path`] in this body.
    pub fn run(
        &self,
        start_block: BlockId,
        start_index: usize,
        at_stmt: impl FnMut(BlockId, usize, &Stmt) -> Step,
        at_exit: impl FnMut(BlockId, &Block) -> bool,
    ) -> PathAnswer {
        search(
            self.blocks,
            &self.stable,
            start_block,
            start_index,
            at_stmt,
            at_exit,
        )
    }
}

fn search(
    blocks: &[Block],
    stable: &HashSet<ValueId>,
    start_block: BlockId,
    start_index: usize,
    mut at_stmt: impl FnMut(BlockId, usize, &Stmt) -> Step,
    mut at_exit: impl FnMut(BlockId, &Block) -> bool,
) -> PathAnswer {
    if blocks.is_empty() {
        return PathAnswer::None;
    }
    let known = decided_at(blocks, stable, start_block);
    let mut visited: HashSet<(u32, Decisions)> = HashSet::new();
    // Every block a path entered, with the index of the entry it came from.
    let mut trail: Vec<(BlockId, usize)> = vec![(start_block, usize::MAX)];
    let mut work: Vec<(BlockId, usize, Decisions, usize)> =
        vec![(start_block, start_index, known, 0)];
    let path_to = |trail: &[(BlockId, usize)], mut at: usize| {
        let mut blocks = Vec::new();
        while let Some(&(b, parent)) = trail.get(at) {
            blocks.push(b);
            at = parent;
        }
        blocks.reverse();
        blocks
    };
    let mut steps = 0usize;
    while let Some((block, from, decided, here)) = work.pop() {
        steps += 1;
        if steps > MAX_PATH_STEPS {
            return PathAnswer::GaveUp;
        }
        let Some(blk) = blocks.get(block.0 as usize) else {
            continue;
        };
        let mut pruned = false;
        for (index, stmt) in blk.stmts.iter().enumerate().skip(from) {
            match at_stmt(block, index, stmt) {
                Step::Continue => {}
                Step::Prune => {
                    pruned = true;
                    break;
                }
                Step::Found => {
                    return PathAnswer::Found(PathEnd::Stmt { block, index }, path_to(&trail, here))
                }
            }
        }
        if pruned {
            continue;
        }
        let mut follow = |target: BlockId, decided: Decisions| {
            if visited.insert((target.0, decided.clone())) {
                trail.push((target, here));
                work.push((target, 0, decided, trail.len() - 1));
            }
        };
        match &blk.term {
            Terminator::Return { .. } => {
                if at_exit(block, blk) {
                    return PathAnswer::Found(PathEnd::Exit { block }, path_to(&trail, here));
                }
            }
            Terminator::Unreachable => {}
            Terminator::Goto(t) => follow(*t, decided),
            Terminator::Branch { cond, targets } => {
                let flag = cond.filter(|c| targets.len() == 2 && stable.contains(c));
                match flag {
                    Some(c) => match decided.iter().find(|(v, _)| *v == c) {
                        Some(&(_, side)) => {
                            if let Some(&t) = targets.get(side) {
                                follow(t, decided);
                            }
                        }
                        None => {
                            for (side, &t) in targets.iter().enumerate() {
                                let mut next = decided.clone();
                                let pos = next.partition_point(|(v, _)| *v < c);
                                next.insert(pos, (c, side));
                                follow(t, next);
                            }
                        }
                    },
                    None => {
                        for &t in targets {
                            follow(t, decided.clone());
                        }
                    }
                }
            }
        }
    }
    PathAnswer::None
}

/// The side of each stable flag that every path into `start` has taken: the flag's
/// branch dominates `start` and only one of its sides leads there.
fn decided_at(
    blocks: &[Block],
    stable: &HashSet<ValueId>,
    start: BlockId,
) -> Vec<(ValueId, usize)> {
    let mut out: Vec<(ValueId, usize)> = Vec::new();
    // Each flag costs two walks of the body; a generated giant skips this refinement
    // (its searches then start with no side taken, which only adds paths).
    if stable.len().saturating_mul(blocks.len()) > MAX_DECIDED_WORK {
        return out;
    }
    for (k, block) in blocks.iter().enumerate() {
        let Terminator::Branch {
            cond: Some(c),
            targets,
        } = &block.term
        else {
            continue;
        };
        if !stable.contains(c) || k == start.0 as usize || targets.len() != 2 {
            continue;
        }
        if reaches(blocks, BlockId(0), start, Some(BlockId(k as u32))) {
            continue;
        }
        let sides: Vec<bool> = targets
            .iter()
            .map(|&t| reaches(blocks, t, start, None))
            .collect();
        if let [true, false] | [false, true] = sides.as_slice() {
            let side = usize::from(sides[1]);
            if !out.iter().any(|(v, _)| v == c) {
                out.push((*c, side));
            }
        }
    }
    out.sort_unstable();
    out
}

/// Whether a path leads from `from` to `to` without entering `avoid`.
fn reaches(blocks: &[Block], from: BlockId, to: BlockId, avoid: Option<BlockId>) -> bool {
    let mut seen = vec![false; blocks.len()];
    let mut work = vec![from];
    while let Some(b) = work.pop() {
        if Some(b) == avoid {
            continue;
        }
        if b == to {
            return true;
        }
        let Some(slot) = seen.get_mut(b.0 as usize) else {
            continue;
        };
        if std::mem::replace(slot, true) {
            continue;
        }
        work.extend(blocks[b.0 as usize].term.successors().iter().copied());
    }
    false
}

/// Scalars whose two-way branches agree along a path: never reassigned, and tested
/// only in blocks outside every cycle of the CFG (a loop's condition changes).
fn stable_conditions(ir: &FnIr, blocks: &[Block]) -> HashSet<ValueId> {
    let cyclic = blocks_in_cycles(blocks);
    let mut ok: HashSet<ValueId> = HashSet::new();
    let mut bad: HashSet<ValueId> = HashSet::new();
    for (k, block) in blocks.iter().enumerate() {
        let Terminator::Branch {
            cond: Some(c),
            targets,
        } = &block.term
        else {
            continue;
        };
        let flag = ir
            .values
            .get(c.0 as usize)
            .is_some_and(|v| v.kind == ValueKind::Scalar && !v.reassigned && targets.len() == 2);
        if flag && !cyclic[k] {
            ok.insert(*c);
        } else {
            bad.insert(*c);
        }
    }
    ok.retain(|c| !bad.contains(c));
    ok
}

/// Whether each block lies on a cycle (Tarjan's strongly connected components,
/// iterative so a huge function cannot overflow the stack).
fn blocks_in_cycles(blocks: &[Block]) -> Vec<bool> {
    let n = blocks.len();
    let succ = |v: usize| -> &[BlockId] { blocks[v].term.successors() };
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut cyclic = vec![false; n];
    let mut next = 0usize;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut frames: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut edge)) = frames.last_mut() {
            let succs = succ(v);
            if let Some(w) = succs.get(*edge).map(|w| w.0 as usize) {
                *edge += 1;
                if w >= n {
                    continue;
                }
                if w == v {
                    cyclic[v] = true;
                }
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    frames.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut members = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                if members.len() > 1 {
                    for w in members {
                        cyclic[w] = true;
                    }
                }
            }
        }
    }
    cyclic
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Body, BodyKind, FnId, ReturnKind, TyClass, Value};
    use crate::source::{FileId, Span};

    /// A function of one body whose blocks end in `terms` (and hold no statements), with
    /// one value, `%0`, a scalar parameter never reassigned: the flag they branch on.
    fn function(terms: Vec<Terminator>) -> FnIr {
        let span = Span::new(FileId(0), 0, 0);
        let flag = Value {
            name: Some("flag".into()),
            kind: ValueKind::Scalar,
            view: None,
            int: None,
            ty: TyClass::Scalar,
            span,
            reassigned: false,
        };
        let blocks = terms
            .into_iter()
            .map(|term| Block {
                stmts: Vec::new(),
                term,
                term_span: span,
                loop_depth: 0,
            })
            .collect();
        let body = Body {
            kind: BodyKind::Function,
            no_grad: false,
            params: vec![ValueId(0)],
            blocks,
            span,
        };
        FnIr {
            values: vec![flag],
            bodies: vec![body],
            ..FnIr::bare(FnId(0), "k")
        }
    }

    fn branch(cond: ValueId, targets: [u32; 2]) -> Terminator {
        Terminator::Branch {
            cond: Some(cond),
            targets: targets.map(BlockId).to_vec(),
        }
    }

    #[test]
    fn a_loop_condition_is_not_a_stable_flag() {
        let flag = ValueId(0);
        let exit = Terminator::Return {
            value: None,
            kind: ReturnKind::End,
        };
        // `while flag { .. }`: bb1 tests the flag, bb2 goes back to it.
        let looped = function(vec![
            Terminator::Goto(BlockId(1)),
            branch(flag, [2, 3]),
            Terminator::Goto(BlockId(1)),
            exit.clone(),
        ]);
        let blocks = &looped.bodies[0].blocks;
        assert_eq!(blocks_in_cycles(blocks), [false, true, true, false]);
        assert!(stable_conditions(&looped, blocks).is_empty());
        // `if flag { .. }`: one value per call.
        let straight = function(vec![
            branch(flag, [1, 2]),
            Terminator::Goto(BlockId(2)),
            exit,
        ]);
        let blocks = &straight.bodies[0].blocks;
        assert_eq!(blocks_in_cycles(blocks), [false; 3]);
        assert!(stable_conditions(&straight, blocks).contains(&flag));
    }
}
