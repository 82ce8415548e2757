//! Facts over the IR of one function: which roots each value may reach
//! ([`points_to`]), which values are live where ([`liveness`]), the allocation state of
//! every root along each path ([`alloc_state`]), how each value was derived
//! ([`derivations`]), and the tasks of its parallel regions with what each task reads
//! and writes ([`parallel`]). The first three are linear-time worklist fixpoints over
//! the blocks (each set only grows, so they terminate).

pub mod alloc_state;
pub mod derivations;
pub mod liveness;
pub mod parallel;
pub mod points_to;

use crate::ir::{BodyId, FnIr};

pub use alloc_state::{AllocState, AllocStates};
pub use derivations::Derivations;
pub use liveness::{Liveness, ValueSet};
pub use parallel::ParallelFacts;
pub use points_to::PointsTo;

/// All facts of one function.
#[derive(Clone, Debug)]
pub struct FnFacts {
    pub points_to: PointsTo,
    /// Per body, in [`FnIr::bodies`] order.
    pub liveness: Vec<Liveness>,
    /// Per body, in [`FnIr::bodies`] order.
    pub alloc: Vec<AllocStates>,
    pub derivations: Derivations,
    pub parallel: ParallelFacts,
}

impl FnFacts {
    pub fn compute(ir: &FnIr) -> FnFacts {
        let points_to = PointsTo::compute(ir);
        let bodies = (0..ir.bodies.len()).map(|b| BodyId(b as u32));
        let liveness = bodies.clone().map(|b| Liveness::compute(ir, b)).collect();
        let alloc = bodies
            .map(|b| AllocStates::compute(ir, b, &points_to))
            .collect();
        let derivations = derivations::derivations(ir);
        let parallel = ParallelFacts::compute(ir, &derivations);
        FnFacts {
            points_to,
            liveness,
            alloc,
            derivations,
            parallel,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BlockId, Op, Terminator};
    use crate::program::analyze_text;

    fn facts(text: &str) -> (FnIr, FnFacts) {
        let (ir, _) = analyze_text(text);
        let f = ir.functions().last().cloned().expect("a function");
        let facts = ir.facts(f.id).cloned().expect("facts");
        (f, facts)
    }

    #[test]
    fn release_on_one_branch_joins_to_allocated_or_released() {
        let (f, facts) = facts(
            "fn k(flag: bool, l: std::alloc::Layout) { let p = unsafe { std::alloc::alloc(l) }; \
             if flag { unsafe { std::alloc::dealloc(p, l) } } }",
        );
        let body = &f.bodies[0];
        let exit = body
            .blocks
            .iter()
            .position(|b| matches!(b.term, Terminator::Return { .. }))
            .expect("a return");
        let state = facts.alloc[0].at_end(&f, BodyId(0), BlockId(exit as u32), &facts.points_to);
        let s = state[0];
        assert!(
            s.may_be(AllocState::ALLOCATED) && s.may_be(AllocState::RELEASED),
            "{}",
            s.describe()
        );
    }

    #[test]
    fn second_release_sees_the_first() {
        let (f, facts) = facts(
            "fn k(l: std::alloc::Layout) { let p = unsafe { std::alloc::alloc(l) }; \
             unsafe { std::alloc::dealloc(p, l) }; unsafe { std::alloc::dealloc(p, l) }; }",
        );
        let releases: Vec<(BlockId, usize)> = f.bodies[0]
            .blocks
            .iter()
            .enumerate()
            .flat_map(|(b, block)| {
                block
                    .stmts
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| matches!(s.op, Op::Release { .. }))
                    .map(move |(i, _)| (BlockId(b as u32), i))
            })
            .collect();
        assert_eq!(releases.len(), 2);
        let (b, i) = releases[1];
        let before = facts.alloc[0].before(&f, BodyId(0), b, i, &facts.points_to);
        assert_eq!(before[0], AllocState::RELEASED);
    }

    #[test]
    fn value_used_after_a_loop_is_live_around_it() {
        let (f, facts) = facts("fn k(a: &mut [f32], n: usize) { for _ in 0..n {} a[0] = 1.0; }");
        let a = f.bodies[0].params[0];
        let live = &facts.liveness[0];
        let loops_with_a = live.live_in.iter().filter(|s| s.contains(a)).count();
        assert!(loops_with_a >= 3, "entry, header and exit keep `a` live");
    }

    #[test]
    fn merged_value_may_point_to_both_roots() {
        let (f, facts) = facts("fn k(c: bool, a: &mut [f32], b: &mut [f32]) { let d = if c { a } else { b }; d[0] = 0.0; }");
        let d = f
            .values
            .iter()
            .position(|v| v.name.as_deref() == Some("d"))
            .expect("d");
        assert_eq!(facts.points_to.roots(crate::ir::ValueId(d as u32)).len(), 2);
    }
}
