// repository: https://github.com/amethyst/legion
// fix commit: f762ab604263b1a4292d8b38e9745e735845102b
// files: src/internals/query/mod.rs (par_iter::ParChunkIter::fold_with, QueryResult::index)
// lint: alias_race
// release with the bug: legion 0.3.1 (also 0.3.0)
// first fixed release: legion 0.4.0
//
// Parallel queries hand rayon a custom `UnindexedProducer` over a
// `QueryResult`, i.e. the list of matching archetypes plus a `range` into it.
// `split` halves the range, so each producer should visit only its own
// archetypes. But `fold_with` iterated `self.result.index` -- the whole list
// -- instead of `self.result.index()`, the sub-slice selected by `range`. Every
// split-off producer therefore fetched and handed out `&mut` component slices
// of *all* archetypes, and a `par_for_each` that writes components had several
// rayon threads writing the same component storage at once ("a massively
// critical bug", legion #239). The fix iterates the range-restricted slice.
// The finding is where each piece hands out its `&mut` columns: two pieces
// read the same archetype number from the whole index and borrow its column.
use rayon::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use rayon::prelude::*;
use std::ops::Range;

/// Component storage: one contiguous `f32` column per archetype.
struct World {
    columns: Vec<Vec<f32>>,
}

/// Shared handle the producers use to reach column storage.
#[derive(Clone, Copy)]
struct WorldPtr(*mut Vec<f32>);
unsafe impl Send for WorldPtr {}
unsafe impl Sync for WorldPtr {}

#[derive(Clone)]
struct QueryResult<'a> {
    index: &'a [usize],
    range: Range<usize>,
}

impl<'a> QueryResult<'a> {
    /// The archetypes this (possibly split) result is responsible for.
    fn index(&self) -> &'a [usize] {
        &self.index[self.range.clone()]
    }
    fn len(&self) -> usize {
        self.range.len()
    }
    fn split_at(self, at: usize) -> (Self, Self) {
        let mid = self.range.start + at;
        (
            QueryResult { index: self.index, range: self.range.start..mid },
            QueryResult { index: self.index, range: mid..self.range.end },
        )
    }
}

struct ParChunkIter<'a> {
    world: WorldPtr,
    result: QueryResult<'a>,
}

impl<'a> UnindexedProducer for ParChunkIter<'a> {
    type Item = &'a mut [f32];

    fn split(self) -> (Self, Option<Self>) {
        let half = self.result.len() / 2;
        let (left, right) = self.result.split_at(half);
        let world = self.world;
        let other = (left.len() > 0).then(|| ParChunkIter { world, result: left });
        (ParChunkIter { world, result: right }, other)
    }

    fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        let world = self.world;
        let archetypes = self.result.index.iter();
        folder.consume_iter(archetypes.map(move |&a| unsafe { (*world.0.add(a)).as_mut_slice() })) //~ alias_race
    }
}

impl<'a> ParallelIterator for ParChunkIter<'a> {
    type Item = &'a mut [f32];
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_unindexed(self, consumer)
    }
}

/// A system: integrate every component of every matching archetype.
fn integrate(world: &mut World, matching: &[usize], dt: f32) {
    let iter = ParChunkIter {
        world: WorldPtr(world.columns.as_mut_ptr()),
        result: QueryResult { index: matching, range: 0..matching.len() },
    };
    iter.for_each(|column| {
        for x in column.iter_mut() {
            *x += dt;
        }
    });
}

fn main() {
    let mut world = World { columns: vec![vec![0.0; 1000]; 8] };
    integrate(&mut world, &[0, 2, 3, 5, 7], 0.1);
    println!("{}", world.columns[0][0]);
}
