//! Live values per block of one body: `in[B] = use[B] ∪ (out[B] − def[B])`,
//! `out[B] = ⋃ in[S]` over the successors `S`, solved backwards with a worklist. A
//! parallel region or closure call uses the values its nested bodies capture.

use crate::ir::{BlockId, BodyId, BodyKind, Callee, FnIr, Op, Terminator, ValueId};

/// A set of values as a bit set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValueSet {
    words: Vec<u64>,
}

impl ValueSet {
    pub fn contains(&self, v: ValueId) -> bool {
        let i = v.0 as usize;
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    pub fn insert(&mut self, v: ValueId) {
        let i = v.0 as usize;
        if self.words.len() <= i / 64 {
            self.words.resize(i / 64 + 1, 0);
        }
        self.words[i / 64] |= 1 << (i % 64);
    }

    pub fn remove(&mut self, v: ValueId) {
        let i = v.0 as usize;
        if let Some(w) = self.words.get_mut(i / 64) {
            *w &= !(1 << (i % 64));
        }
    }

    /// Adds every member of `other`; whether anything was new.
    pub fn union_with(&mut self, other: &ValueSet) -> bool {
        if self.words.len() < other.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        let mut changed = false;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            let next = *a | *b;
            changed |= next != *a;
            *a = next;
        }
        changed
    }

    /// `self` becomes `out − defs ∪ uses`; whether it changed.
    fn assign_transfer(&mut self, out: &ValueSet, defs: &ValueSet, uses: &ValueSet) -> bool {
        let len = out.words.len().max(uses.words.len());
        if self.words.len() < len {
            self.words.resize(len, 0);
        }
        let word = |set: &ValueSet, k: usize| set.words.get(k).copied().unwrap_or(0);
        let mut changed = false;
        for (k, slot) in self.words.iter_mut().enumerate() {
            let next = (word(out, k) & !word(defs, k)) | word(uses, k);
            changed |= next != *slot;
            *slot = next;
        }
        changed
    }

    pub fn iter(&self) -> impl Iterator<Item = ValueId> + '_ {
        self.words.iter().enumerate().flat_map(|(k, &w)| {
            (0..64)
                .filter(move |b| w & (1 << b) != 0)
                .map(move |b| ValueId((k * 64 + b) as u32))
        })
    }
}

/// Live-in and live-out sets of every block of one body.
#[derive(Clone, Debug, Default)]
pub struct Liveness {
    pub live_in: Vec<ValueSet>,
    pub live_out: Vec<ValueSet>,
}

/// The values an op uses, including what the bodies it runs capture.
pub fn op_uses(ir: &FnIr, op: &Op) -> Vec<ValueId> {
    let mut uses = op.uses();
    let add_body = |b: BodyId, uses: &mut Vec<ValueId>| {
        if let Some(BodyKind::Closure { captures, .. }) =
            ir.bodies.get(b.0 as usize).map(|b| &b.kind)
        {
            uses.extend(captures.iter().copied());
        }
    };
    match op {
        Op::Parallel(region) => region
            .tasks
            .iter()
            .for_each(|t| add_body(t.body, &mut uses)),
        Op::Spawn { task, .. } => add_body(task.body, &mut uses),
        Op::Call {
            callee: Callee::Closure(b),
            ..
        } => add_body(*b, &mut uses),
        _ => {}
    }
    uses
}

fn term_uses(term: &Terminator) -> Option<ValueId> {
    match term {
        Terminator::Branch { cond, .. } => *cond,
        Terminator::Return { value, .. } => *value,
        _ => None,
    }
}

/// Where `v` is used after statement `stmt` of `block` of `body`, before any
/// redefinition of `v`: the `(block, index)` of every such use on some path, nearest
/// first within a block. A use by a block's terminator (a returned value, a branch
/// condition) has index `stmts.len()`. This is the witness side of liveness: `v` is live
/// after the statement exactly when the list is not empty.
pub fn uses_after(
    ir: &FnIr,
    body: BodyId,
    block: BlockId,
    stmt: usize,
    v: ValueId,
) -> Vec<(BlockId, usize)> {
    let Some(b) = ir.bodies.get(body.0 as usize) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut seen = vec![false; b.blocks.len()];
    // (block, first statement to scan, last statement to scan + 1)
    let mut work = vec![(block.0 as usize, stmt + 1, usize::MAX)];
    while let Some((k, from, to)) = work.pop() {
        let Some(blk) = b.blocks.get(k) else {
            continue;
        };
        let mut killed = false;
        for (i, s) in blk.stmts.iter().enumerate().take(to).skip(from) {
            if op_uses(ir, &s.op).contains(&v) {
                found.push((BlockId(k as u32), i));
            }
            if s.op.def() == Some(v) {
                killed = true;
                break;
            }
        }
        if killed || to != usize::MAX {
            continue;
        }
        if term_uses(&blk.term) == Some(v) {
            found.push((BlockId(k as u32), blk.stmts.len()));
        }
        for succ in blk.term.successors() {
            let s = succ.0 as usize;
            if s < seen.len() && !seen[s] {
                seen[s] = true;
                // Coming back around a loop to the starting block: only what precedes
                // the statement is new.
                let to = if s == block.0 as usize {
                    stmt + 1
                } else {
                    usize::MAX
                };
                work.push((s, 0, to));
            }
        }
    }
    found.sort_unstable();
    found
}

impl Liveness {
    pub fn compute(ir: &FnIr, body: BodyId) -> Liveness {
        let Some(b) = ir.bodies.get(body.0 as usize) else {
            return Liveness::default();
        };
        let n = b.blocks.len();
        let mut uses = vec![ValueSet::default(); n];
        let mut defs = vec![ValueSet::default(); n];
        for (k, block) in b.blocks.iter().enumerate() {
            // Backwards: a use before any def in the block is upward-exposed.
            if let Some(v) = term_uses(&block.term) {
                uses[k].insert(v);
            }
            for stmt in block.stmts.iter().rev() {
                if let Some(d) = stmt.op.def() {
                    defs[k].insert(d);
                    uses[k].remove(d);
                }
                for u in op_uses(ir, &stmt.op) {
                    uses[k].insert(u);
                }
            }
        }
        let preds = b.predecessors();
        let mut live_in = uses.clone();
        let mut live_out = vec![ValueSet::default(); n];
        let mut work: Vec<usize> = (0..n).collect();
        let mut queued = vec![true; n];
        while let Some(k) = work.pop() {
            queued[k] = false;
            let mut out = std::mem::take(&mut live_out[k]);
            out.words.iter_mut().for_each(|w| *w = 0);
            for s in b.blocks[k].term.successors() {
                if let Some(set) = live_in.get(s.0 as usize) {
                    out.union_with(set);
                }
            }
            let changed = live_in[k].assign_transfer(&out, &defs[k], &uses[k]);
            live_out[k] = out;
            if changed {
                for p in &preds[k] {
                    let p = p.0 as usize;
                    if !queued[p] {
                        queued[p] = true;
                        work.push(p);
                    }
                }
            }
        }
        Liveness { live_in, live_out }
    }
}
