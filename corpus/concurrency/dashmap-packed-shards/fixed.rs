// repository: https://github.com/xacrimon/dashmap
// fix commit: bfc8378021c9a70677a8f952389e7dbef7cb0821
// files: src/lib.rs (DashMap::shards, new, with_capacity, _yield_write_shard)
// lint: false_sharing
// release with the bug: dashmap 1.2.1
// first fixed release: dashmap 2.0.0
//
// Fixed shape: every shard is `CachePadded`, so each lock word and map header
// owns its cache line(s).
use crossbeam_utils::CachePadded;
use std::hash::{BuildHasher, Hash, Hasher};
use std::collections::hash_map::RandomState;
use std::sync::{RwLock, RwLockWriteGuard};

struct ShardedMap {
    shift: u32,
    shards: Box<[CachePadded<RwLock<Vec<(u64, u64)>>>]>,
    hasher: RandomState,
}

impl ShardedMap {
    fn new(shard_amount: usize) -> Self {
        let shards = (0..shard_amount)
            .map(|_| CachePadded::new(RwLock::new(Vec::new())))
            .collect::<Vec<_>>()
            .into_boxed_slice();
        ShardedMap { shift: 64 - shard_amount.trailing_zeros(), shards, hasher: RandomState::new() }
    }

    /// Which shard a key lives in.
    fn determine_shard(&self, key: &u64) -> usize {
        let mut h = self.hasher.build_hasher();
        key.hash(&mut h);
        (h.finish() >> self.shift) as usize
    }

    fn write_shard(&self, i: usize) -> RwLockWriteGuard<'_, Vec<(u64, u64)>> {
        self.shards[i].write().unwrap()
    }

    fn insert(&self, key: u64, value: u64) {
        let i = self.determine_shard(&key);
        self.write_shard(i).push((key, value));
    }
}

fn main() {
    let map = ShardedMap::new(64);
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let map = &map;
            s.spawn(move || {
                for k in 0..200_000u64 {
                    map.insert(k * 4 + t, k);
                }
            });
        }
    });
    println!("{}", map.shards.iter().map(|s| s.read().unwrap().len()).sum::<usize>());
}
