// repository: https://github.com/bevyengine/bevy
// fix commit: 2bd8ed57d0a116672abb929923ba0310fe7e0954
// files: crates/bevy_ecs/src/query/state.rs (QueryState::par_for_each_unchecked_manual, archetype branch)
// lint: alias_race
// release with the bug: bevy_ecs 0.5.0
// first fixed release: bevy_ecs 0.6.0
//
// `Query::par_for_each_mut(pool, batch_size, f)` walks every matched storage
// in batches: `while offset < len { scope.spawn(task for offset..offset+batch);
// offset += batch_size }`. The dense (table) branch honoured the batch
// bounds, but the sparse (archetype) branch's task looped
// `for archetype_index in 0..archetype.len()`, ignoring `offset`, so every
// spawned batch fetched `&mut` components for the whole archetype. With more
// entities than one batch, several tasks mutate the same components at once:
// heap corruption when the closure reassigns a `Vec` component (bevy #1943)
// and closures run several times per entity (bevy #2247). The fix clamps the
// loop to `offset..offset + min(batch_size, len - offset)`.

/// Column of one component type inside one archetype.
struct Column {
    data: Vec<Vec<u8>>,
}

/// What a task uses to reach the column; handed to every spawned batch.
#[derive(Clone, Copy)]
struct Fetch {
    base: *mut Vec<u8>,
}
unsafe impl Send for Fetch {}

impl Fetch {
    fn set_archetype(column: &mut Column) -> Fetch {
        Fetch { base: column.data.as_mut_ptr() }
    }
    /// Mutable access to the component of the entity at `row`.
    unsafe fn archetype_fetch<'w>(self, row: usize) -> &'w mut Vec<u8> {
        unsafe { &mut *self.base.add(row) }
    }
}

fn par_for_each_mut(column: &mut Column, batch_size: usize, func: impl Fn(&mut Vec<u8>) + Sync) {
    let len = column.data.len();
    let fetch = Fetch::set_archetype(column);
    let func = &func;
    std::thread::scope(|scope| {
        let mut offset = 0;
        while offset < len {
            scope.spawn(move || {
                for archetype_index in 0..len {
                    func(unsafe { fetch.archetype_fetch(archetype_index) }); //~ alias_race
                }
            });
            offset += batch_size;
        }
    });
}

fn main() {
    let mut tiles = Column { data: vec![Vec::new(); 64] };
    par_for_each_mut(&mut tiles, 8, |pixels| *pixels = vec![0u8; 256 * 256]);
    println!("{}", tiles.data[3].len());
}
