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
            let mut out = ValueSet::default();
            for s in b.blocks[k].term.successors() {
                if let Some(set) = live_in.get(s.0 as usize) {
                    out.union_with(set);
                }
            }
            let mut inn = out.clone();
            for d in defs[k].iter() {
                inn.remove(d);
            }
            inn.union_with(&uses[k]);
            live_out[k] = out;
            if inn != live_in[k] {
                live_in[k] = inn;
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

    /// Values live just after statement `stmt` of `block` (replaying the block
    /// backwards from its live-out set).
    pub fn live_after(&self, ir: &FnIr, body: BodyId, block: BlockId, stmt: usize) -> ValueSet {
        let mut live = self
            .live_out
            .get(block.0 as usize)
            .cloned()
            .unwrap_or_default();
        let Some(b) = ir
            .bodies
            .get(body.0 as usize)
            .and_then(|b| b.blocks.get(block.0 as usize))
        else {
            return live;
        };
        if let Some(v) = term_uses(&b.term) {
            live.insert(v);
        }
        for s in b.stmts.iter().skip(stmt + 1).rev() {
            if let Some(d) = s.op.def() {
                live.remove(d);
            }
            for u in op_uses(ir, &s.op) {
                live.insert(u);
            }
        }
        live
    }
}
