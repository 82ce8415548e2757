//! May-point-to sets: the roots each value may reach, through the root its kind names
//! and every `Assign`/`View` that flows into it (flow-insensitive, so one set per
//! value covers all paths).

use crate::ir::{FnIr, Op, RootId, ValueId};

/// The roots each value may reach, sorted and deduplicated.
#[derive(Clone, Debug, Default)]
pub struct PointsTo {
    sets: Vec<Vec<RootId>>,
}

impl PointsTo {
    pub fn compute(ir: &FnIr) -> PointsTo {
        let n = ir.values.len();
        let mut sets: Vec<Vec<RootId>> = ir
            .values
            .iter()
            .map(|v| v.kind.root().into_iter().collect())
            .collect();
        // Edges src -> dst of every copy of memory; an allocation or a load into a
        // value that held other memory before (`p = load` after `p = alloc`) adds its
        // root to those the value may reach.
        let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (_, _, stmt) in ir.stmts() {
            if let Op::Alloc { dst, root, .. } | Op::Load { dst, root } = &stmt.op {
                if let Some(set) = sets.get_mut(dst.0 as usize) {
                    if let Err(pos) = set.binary_search(root) {
                        set.insert(pos, *root);
                    }
                }
            }
            if let Op::Assign { dst, src } | Op::View { dst, src, .. } = &stmt.op {
                let (d, s) = (dst.0 as usize, src.0 as usize);
                if d < n && s < n {
                    succs[s].push(d);
                }
            }
        }
        let mut work: Vec<usize> = (0..n).filter(|&v| !sets[v].is_empty()).collect();
        while let Some(v) = work.pop() {
            let from = sets[v].clone();
            for &d in &succs[v] {
                let before = sets[d].len();
                for &r in &from {
                    if let Err(pos) = sets[d].binary_search(&r) {
                        sets[d].insert(pos, r);
                    }
                }
                if sets[d].len() != before {
                    work.push(d);
                }
            }
        }
        PointsTo { sets }
    }

    /// The roots `v` may reach.
    pub fn roots(&self, v: ValueId) -> &[RootId] {
        self.sets.get(v.0 as usize).map_or(&[], Vec::as_slice)
    }

    /// Whether two values may reach a common root.
    pub fn may_share_root(&self, a: ValueId, b: ValueId) -> bool {
        let (a, b) = (self.roots(a), self.roots(b));
        a.iter().any(|r| b.binary_search(r).is_ok())
    }
}
