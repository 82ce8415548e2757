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
