//! Tests of the lowering: the IR one function's syntax becomes.

use crate::ir::{
    EscapeKind, FnIr, Op, ParallelKind, ReleaseKind, ReturnKind, Terminator, ValueKind, ViewOp,
};
use crate::program::analyze_text;

// ----- values, blocks and parallel regions ---------------------------------------

fn lower_one(text: &str) -> FnIr {
    let (ir, _) = analyze_text(text);
    ir.functions().last().cloned().expect("one function")
}

fn ops(f: &FnIr) -> Vec<&Op> {
    f.stmts().map(|(_, _, s)| &s.op).collect()
}

#[test]
fn slice_parameter_has_a_symbolic_contiguous_geometry() {
    let f = lower_one("fn k(a: &mut [f32]) { a[3] = 1.0; }");
    let write = ops(&f).into_iter().find_map(|op| match op {
        Op::Write {
            region: Some(r), ..
        } => Some(r.clone()),
        _ => None,
    });
    let region = write.expect("a write with a region");
    assert_eq!(region.offset.as_const(), Some(3));
    assert_eq!(region.elem_bytes, 4);
}

#[test]
fn mutable_integer_is_a_symbol_not_its_first_value() {
    let f = lower_one("fn k(a: &mut [f32]) { let mut i = 0; while i < 4 { a[i] = 0.0; i += 1; } }");
    let region = ops(&f).into_iter().find_map(|op| match op {
        Op::Write {
            region: Some(r), ..
        } => Some(r.clone()),
        _ => None,
    });
    assert_eq!(region.expect("region").offset.as_const(), None);
}

#[test]
fn closure_records_the_outer_bindings_it_captures() {
    let f = lower_one("fn k(a: &mut [f32], s: f32) { let g = |i: usize| a[i] *= s; }");
    let crate::ir::BodyKind::Closure { captures, .. } = &f.bodies[1].kind else {
        panic!("closure body expected");
    };
    let names: Vec<_> = captures
        .iter()
        .filter_map(|&c| f.value(c).name.clone())
        .collect();
    assert!(
        names.contains(&"a".to_string()) && names.contains(&"s".to_string()),
        "{names:?}"
    );
}

#[test]
fn early_return_and_question_mark_end_blocks_with_their_kind() {
    let f = lower_one(
        "fn k(x: Option<u8>) -> Option<u8> { let y = x?; if y == 0 { return None; } Some(y) }",
    );
    let kinds: Vec<ReturnKind> = f.bodies[0]
        .blocks
        .iter()
        .filter_map(|b| match b.term {
            Terminator::Return { kind, .. } => Some(kind),
            _ => None,
        })
        .collect();
    for k in [ReturnKind::Try, ReturnKind::Early, ReturnKind::End] {
        assert!(kinds.contains(&k), "{kinds:?}");
    }
}

#[test]
fn labelled_continue_jumps_to_the_outer_loop_header() {
    let f = lower_one("fn k(n: usize) { 'o: for i in 0..n { loop { continue 'o; } } }");
    let body = &f.bodies[0];
    // The outer header is the block the entry jumps to.
    let Terminator::Goto(header) = body.blocks[0].term else {
        panic!("entry jumps to the loop header");
    };
    let jumps_back = body.predecessors()[header.0 as usize].len();
    assert!(
        jumps_back >= 2,
        "entry and the `continue 'o` both reach the header"
    );
}

#[test]
fn provenance_survives_usize_casts_and_pointer_steps() {
    let f = lower_one(
        "fn k(v: &mut Vec<f32>) { let p = v.as_mut_ptr(); let a = unsafe { p.add(2) } as usize; \
         unsafe { *(a as *mut f32) = 0.0 }; }",
    );
    let write = ops(&f).into_iter().find_map(|op| match op {
        Op::Write { value, region } => Some((*value, region.clone())),
        _ => None,
    });
    let (value, region) = write.expect("a write through the pointer");
    assert!(matches!(f.value(value).kind, ValueKind::RawPtr(Some(_))));
    assert_eq!(region.expect("region").offset.as_const(), Some(2));
}

#[test]
fn rayon_join_lowers_both_closures_as_tasks() {
    let f = lower_one(
        "fn k(a: &mut [f32], b: &mut [f32]) { rayon::join(|| a[0] = 1.0, || b[0] = 2.0); }",
    );
    let region = ops(&f).into_iter().find_map(|op| match op {
        Op::Parallel(r) => Some(r.clone()),
        _ => None,
    });
    let region = region.expect("a parallel region");
    assert_eq!(region.kind, ParallelKind::Join);
    assert_eq!(region.tasks.len(), 2);
}

#[test]
fn parallel_chunks_index_views_by_the_iteration_symbol() {
    let f = lower_one("fn k(a: &mut [f32]) { a.par_chunks_mut(8).for_each(|c| c[0] = 0.0); }");
    let region = ops(&f).into_iter().find_map(|op| match op {
        Op::Parallel(r) => Some(r.clone()),
        _ => None,
    });
    let task = region
        .expect("region")
        .tasks
        .into_iter()
        .next()
        .expect("a task");
    let it = task.iteration.expect("replicated");
    let writes: Vec<_> = f
        .body(task.body)
        .blocks
        .iter()
        .flat_map(|b| &b.stmts)
        .collect();
    let Some(Op::Write {
        region: Some(r), ..
    }) = writes
        .iter()
        .map(|s| &s.op)
        .find(|op| matches!(op, Op::Write { .. }))
    else {
        panic!("the task writes its chunk");
    };
    assert!(r.offset.mentions(&it.symbol), "{}", r.offset);
}

#[test]
fn returned_allocation_escapes() {
    let f = lower_one("fn k(n: usize) -> Vec<f32> { let v = vec![0.0f32; n]; v }");
    assert!(ops(&f).iter().any(|op| matches!(
        op,
        Op::Escape {
            how: EscapeKind::Returned,
            ..
        }
    )));
    assert!(ops(&f)
        .iter()
        .any(|op| matches!(op, Op::Alloc { size: Some(_), .. })));
}

#[test]
fn unknown_macros_are_opaque_and_huge_literals_unknown() {
    let f =
        lower_one("fn k(a: &mut [f32]) { mystery!(a[0] = 1.0); a[99999999999999999999] = 0.0; }");
    let writes: Vec<_> = ops(&f)
        .into_iter()
        .filter_map(|op| match op {
            Op::Write { region, .. } => Some(region.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(writes.len(), 1, "only the write outside the macro");
    assert!(
        writes[0].is_none(),
        "the index does not fit i64, so the region is unknown"
    );
}

#[test]
fn s_macro_with_negative_step_becomes_a_slice_op() {
    let f = lower_one(
        "fn k() { let a = Array2::<f32>::zeros((3, 4)); let v = a.slice(s![.., ..;-2]); }",
    );
    let slice = ops(&f).into_iter().find_map(|op| match op {
        Op::View {
            dst,
            how: ViewOp::Slice(_),
            ..
        } => Some(*dst),
        _ => None,
    });
    let view = f
        .value(slice.expect("a slice"))
        .view
        .clone()
        .expect("known geometry");
    assert_eq!(view.dims[1].stride.as_const(), Some(-2));
    assert_eq!(view.offset.as_const(), Some(3));
}

#[test]
fn entries_of_a_static_table_are_carried_by_summaries() {
    let (ir, _) = analyze_text(
        "use std::sync::atomic::{AtomicBool, Ordering};
         const N: usize = 32;
         static LOCKS: [AtomicBool; N] = [const { AtomicBool::new(false) }; N];
         fn pick(addr: usize) -> &'static AtomicBool { &LOCKS[(addr >> 4) % N] }
         fn take(addr: usize) { while pick(addr).swap(true, Ordering::Acquire) {} }
         fn user(addr: usize) { take(addr); }",
    );
    let by_name = |n: &str| {
        let f = ir.functions().find(|f| f.name == n).expect("the function");
        (f.clone(), ir.summary(f.id).cloned().expect("a summary"))
    };
    let (_, pick) = by_name("pick");
    let crate::summary::ReturnSummary::Entry(table) = &pick.returns else {
        panic!("{:?}", pick.returns);
    };
    assert_eq!((table.name.as_str(), table.elem_bytes), ("LOCKS", 1));
    assert_eq!(table.shape, vec![crate::oracle::Expr::int(32)]);
    let (_, take) = by_name("take");
    assert_eq!(take.table_writes.len(), 1);
    // The caller's atomic write is one entry at an index of its own, within the table.
    let (user, _) = by_name("user");
    let entry = user
        .stmts()
        .find_map(|(_, _, s)| match &s.op {
            Op::Atomic { value, .. } => Some(*value),
            _ => None,
        })
        .expect("an atomic write");
    let view = user.value(entry).view.clone().expect("the entry's place");
    let symbol = view
        .offset
        .symbols()
        .into_iter()
        .next()
        .expect("a run-time index");
    assert!(crate::models::is_run_time_index(&symbol), "{symbol}");
    let range = user
        .run_time_indices
        .iter()
        .find(|it| it.symbol == symbol)
        .expect("its range");
    assert_eq!(range.hi, crate::oracle::Expr::int(32));
}

#[test]
fn matrix_blocks_have_their_geometry() {
    let f = lower_one(
        "fn k(d: &mut [f32; 16]) { \
         let m = nalgebra::DMatrixViewMut::from_slice_with_strides_mut(d, 4, 4, 1, 4); \
         let b = m.view_range(1..3, 2); let s = m.submatrix(1, 2, 2, 1); }",
    );
    let geometry = |name: &str| {
        let v = f
            .values
            .iter()
            .find(|v| v.name.as_deref() == Some(name))
            .and_then(|v| v.view.clone())
            .expect("known geometry");
        (v.offset.as_const(), v.shape())
    };
    // Rows 1 and 2 of column 2: offset 1 * 1 + 2 * 4, two rows of one column.
    assert_eq!(
        geometry("b"),
        (
            Some(9),
            vec![crate::oracle::Expr::int(2), crate::oracle::Expr::int(1)]
        )
    );
    assert_eq!(geometry("s"), geometry("b"));
}

// ----- owners dropped at the end of their scope ----------------------------------

fn releases(text: &str) -> Vec<ReleaseKind> {
    let (ir, _) = analyze_text(text);
    let f = ir.functions().last().cloned().expect("a function");
    f.stmts()
        .filter_map(|(_, _, s)| match &s.op {
            Op::Release { how, .. } => Some(how.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn owner_is_dropped_at_the_end_of_its_block() {
    let got = releases("fn k(n: usize) { { let v = vec![0u8; n]; } }");
    assert_eq!(got, vec![ReleaseKind::ScopeEnd]);
}

#[test]
fn moved_returned_or_explicitly_dropped_owners_are_not_dropped_again() {
    assert!(releases("fn k(n: usize) -> Vec<u8> { let v = vec![0u8; n]; v }").is_empty());
    assert_eq!(
        releases("fn k(n: usize) { let v = vec![0u8; n]; drop(v); }"),
        vec![ReleaseKind::Drop]
    );
    // `let w = v` moves: one drop, of `w`.
    assert_eq!(
        releases("fn k(n: usize) { let v = vec![0u8; n]; let w = v; }"),
        vec![ReleaseKind::ScopeEnd]
    );
    // `let _ = v` binds nothing and moves nothing.
    assert_eq!(
        releases("fn k(n: usize) { let v = vec![0u8; n]; let _ = v; }"),
        vec![ReleaseKind::ScopeEnd]
    );
}

#[test]
fn items_moved_into_a_pointer_making_closure_are_dropped_there() {
    let closure_end = |text: &str| {
        releases(text)
            .into_iter()
            .filter(|h| *h == ReleaseKind::ClosureEnd)
            .count()
    };
    // Each owned string is moved into the closure that takes its pointer.
    let moved = "fn k(v: Vec<std::ffi::CString>) { \
                 let p: Vec<*const i8> = v.into_iter().map(|s| s.as_ptr()).collect(); }";
    assert_eq!(closure_end(moved), 1);
    // `Option::map` moves the whole vector in.
    let whole = "fn k(v: Option<Vec<f32>>) { let p = v.map(|w| w.as_ptr()); }";
    assert_eq!(closure_end(whole), 1);
    // Borrowed items, items that own nothing, and closures that make no pointer.
    for quiet in [
        "fn k(v: Vec<std::ffi::CString>) { let p: Vec<*const i8> = v.iter().map(|s| s.as_ptr()).collect(); }",
        "fn k(v: Vec<&'static std::ffi::CStr>) { let p: Vec<*const i8> = v.into_iter().map(|s| s.as_ptr()).collect(); }",
        "fn k(v: Option<Vec<f32>>) { let n = v.map(|w| w.len()); }",
        "fn k(v: Option<Vec<f32>>) { let p = v.as_ref().map(|w| w.as_ptr()); }",
    ] {
        assert_eq!(closure_end(quiet), 0, "{quiet}");
    }
}

#[test]
fn owners_are_dropped_on_every_early_exit() {
    let got = releases(
        "fn k(n: usize, r: Result<(), ()>) -> Result<(), ()> { let v = vec![0u8; n]; \
         if n == 0 { return Ok(()); } r?; Ok(()) }",
    );
    // The early return, the `?` error path and the closing brace.
    assert_eq!(got, vec![ReleaseKind::ScopeEnd; 3]);
}

#[test]
fn break_and_continue_drop_the_loop_body_owners_only() {
    let got = releases(
        "fn k(n: usize) { let outer = vec![0u8; n]; for i in 0..n { let v = vec![0u8; n]; \
         if i == 1 { continue; } if i == 2 { break; } } }",
    );
    // `v` at `continue`, at `break` and at its closing brace; `outer` once.
    assert_eq!(got, vec![ReleaseKind::ScopeEnd; 4]);
}

#[test]
fn returned_or_broken_out_owner_is_not_dropped_on_that_exit() {
    assert!(releases(
        "fn k(n: usize) -> Vec<u8> { let v = vec![0u8; n]; if n > 2 { return v; } v }"
    )
    .is_empty());
    let got = releases("fn k(n: usize) { let w = loop { let v = vec![0u8; n]; break v; }; }");
    assert_eq!(got, vec![ReleaseKind::ScopeEnd], "only `w` is dropped");
}

#[test]
fn null_test_marks_the_pointer_null_on_its_branch() {
    let (ir, _) = analyze_text(
        "fn k(l: std::alloc::Layout) { let p = unsafe { std::alloc::alloc(l) }; \
         if !p.is_null() { unsafe { std::alloc::dealloc(p, l) } } }",
    );
    let f = ir.functions().next().expect("a function");
    let body = &f.bodies[0];
    let null_block = body
        .blocks
        .iter()
        .position(|b| {
            b.stmts
                .iter()
                .any(|s| matches!(s.op, Op::AssumeNull { .. }))
        })
        .expect("an assume-null");
    let dealloc_block = body
        .blocks
        .iter()
        .position(|b| b.stmts.iter().any(|s| matches!(s.op, Op::Release { .. })))
        .expect("a dealloc");
    assert_ne!(
        null_block, dealloc_block,
        "`!is_null()` assumes null on the else branch"
    );
}

// ----- bounded recursion ---------------------------------------------------------

#[test]
fn nesting_past_the_limit_is_truncated_on_a_parser_sized_stack() {
    // syn needs about 3 MiB to parse this nesting in a debug build; the bounded
    // lowering must fit in what parsing needed, so a thread that can parse a file
    // can also lower it.
    let worker = std::thread::Builder::new()
        .stack_size(4 * 1024 * 1024)
        .spawn(|| {
            let depth = super::MAX_DEPTH as usize + 8;
            let body = format!("{}a[0] = 1.0;{}", "{ ".repeat(depth), " }".repeat(depth));
            let text = format!("fn f(a: &mut [f32]) {{ {body} }}");
            let (ir, _) = analyze_text(&text);
            let truncated = ir.functions().next().map(|f| f.truncated);
            truncated
        })
        .expect("thread starts");
    assert_eq!(worker.join().expect("no stack overflow"), Some(true));
}

// ----- in-place ops and their producers -------------------------------------------

#[test]
fn out_of_place_ops_record_their_producer_and_in_place_form() {
    let f = lower_one(
        "fn k(x: ndarray::Array2<f32>, t: tch::Tensor) { let y = x.mapv(|v| v * 2.0); \
         let z = &x - 1.0; let s = t.sigmoid(); }",
    );
    let producers: Vec<&crate::ir::Producer> =
        f.roots.iter().filter_map(|r| r.producer.as_ref()).collect();
    let mapv = producers.iter().find(|p| p.op == "mapv").expect("mapv");
    assert_eq!(mapv.inplace_form.as_deref(), Some("mapv_into_any"));
    let sub = producers
        .iter()
        .find(|p| p.op == "-")
        .expect("the subtraction");
    assert!(sub.lhs_ref.is_some());
    assert_eq!(sub.inputs.len(), 2, "both operands, the scalar too");
    let sigmoid = producers
        .iter()
        .find(|p| p.op == "sigmoid")
        .expect("sigmoid");
    assert!(sigmoid.saves_output);
}

#[test]
fn no_grad_closure_body_runs_without_autograd() {
    let f =
        lower_one("fn k(mut w: tch::Tensor, g: tch::Tensor) { tch::no_grad(|| { w.sub_(&g); }); }");
    assert!(!f.bodies[0].no_grad);
    assert!(f.bodies.iter().skip(1).any(|b| b.no_grad));
}

#[test]
fn loop_body_entry_and_header_are_inside_the_loop() {
    let f = lower_one("fn k(n: usize) { for _ in 0..n { let t = vec![0u8; 16]; } }");
    let alloc_block = f.bodies[0]
        .blocks
        .iter()
        .find(|b| b.stmts.iter().any(|s| matches!(s.op, Op::Alloc { .. })))
        .expect("the allocation");
    assert_eq!(alloc_block.loop_depth, 1);
}

#[test]
fn compound_assignment_through_a_reference_is_in_place_from_the_source() {
    let f = lower_one("fn k(a: &mut ndarray::Array2<f32>) { *a += &a.t(); }");
    let srcs = ops(&f).into_iter().find_map(|op| match op {
        Op::InPlace { srcs, method, .. } if method == "+=" => Some(srcs.len()),
        _ => None,
    });
    assert_eq!(srcs, Some(1));
}

#[test]
fn local_method_ending_in_underscore_is_the_crates_own() {
    let (ir, _) = analyze_text(
        "struct T; impl T { fn flatten_(&self) -> usize { 0 } fn all(&self) -> usize { self.flatten_() } }",
    );
    let all = ir.functions().find(|f| f.name == "all").expect("all");
    assert!(!ops(all).iter().any(|op| matches!(op, Op::InPlace { .. })));
}

// ----- escapes to the caller -------------------------------------------------------

/// The roots of `f` that some `Escape` of kind `Returned` reaches.
fn returned_roots(f: &FnIr) -> Vec<crate::ir::RootId> {
    let pt = crate::dataflow::PointsTo::compute(f);
    let mut roots: Vec<_> = ops(f)
        .into_iter()
        .filter_map(|op| match op {
            Op::Escape {
                value,
                how: EscapeKind::Returned,
            } => Some(pt.roots(*value).to_vec()),
            _ => None,
        })
        .flatten()
        .collect();
    roots.sort_unstable();
    roots.dedup();
    roots
}

#[test]
fn allocations_returned_inside_tuples_arrays_and_structs_escape() {
    let header = "use std::alloc::{alloc, Layout};
         struct Pair { a: *mut u8, b: *mut u8 }";
    for body in [
        "fn k(l: Layout) -> (*mut u8, usize) { let p = unsafe { alloc(l) }; (p, 4) }",
        "fn k(l: Layout) -> [*mut u8; 2] { unsafe { [alloc(l), alloc(l)] } }",
        "fn k(l: Layout) -> Pair { let a = unsafe { alloc(l) }; let b = unsafe { alloc(l) }; Pair { a, b } }",
        "fn k(l: Layout) -> (usize, *mut u8) { if l.size() == 0 { return (0, std::ptr::null_mut()); } (1, unsafe { alloc(l) }) }",
    ] {
        let f = lower_one(&format!("{header}\n{body}"));
        assert_eq!(returned_roots(&f).len(), f.roots.len(), "{body}");
        assert!(!f.roots.is_empty(), "{body}");
    }
}

#[test]
fn drop_in_place_of_a_borrowed_slice_drops_elements_not_the_buffer() {
    let (ir, _) =
        analyze_text("unsafe fn clear(data: &mut [String]) { std::ptr::drop_in_place(data); }");
    let f = ir.functions().next().expect("one function");
    assert!(!ops(f).iter().any(|op| matches!(op, Op::Release { .. })));
    assert!(ops(f).iter().any(|op| matches!(op, Op::Write { .. })));
    let s = ir.summary(f.id).expect("summarized");
    assert!(s.frees.is_empty() && s.writes.contains(&0), "{s:?}");
}

#[test]
fn bitwise_copy_of_an_owner_owns_the_same_memory() {
    for copy in ["std::mem::transmute_copy(&v)", "std::ptr::read(&v)"] {
        let f = lower_one(&format!(
            "fn k(n: usize) -> Vec<f32> {{ let v = vec![0.0f32; n]; let c = unsafe {{ {copy} }}; std::mem::forget(v); c }}"
        ));
        let c = f
            .values
            .iter()
            .find(|v| v.name.as_deref() == Some("c"))
            .expect("the copy");
        assert!(matches!(c.kind, ValueKind::Root(_)), "{copy}: {:?}", c.kind);
        assert_eq!(returned_roots(&f).len(), 1, "{copy}");
    }
}

#[test]
fn method_taking_self_by_value_and_returning_self_hands_the_owner_back() {
    let f = lower_one(
        "use std::alloc::{alloc, Layout};
         struct Buf { p: *mut u8 }
         impl Buf {
             fn new(l: Layout) -> Buf { Buf { p: unsafe { alloc(l) } } }
             fn filled(self, x: u8) -> Self { unsafe { *self.p = x }; self }
         }
         fn k(l: Layout) -> Buf { Buf::new(l).filled(0) }",
    );
    assert_eq!(returned_roots(&f).len(), 1);
}

#[test]
fn method_taking_self_by_reference_does_not_hand_the_owner_back() {
    let f = lower_one(
        "use std::alloc::{alloc, Layout};
         struct Buf { p: *mut u8 }
         impl Buf {
             fn new(l: Layout) -> Buf { Buf { p: unsafe { alloc(l) } } }
             fn fresh(&self) -> Self { Buf { p: std::ptr::null_mut() } }
         }
         fn k(l: Layout) -> Buf { Buf::new(l).fresh() }",
    );
    assert!(returned_roots(&f).is_empty());
}

#[test]
fn new_value_of_a_type_with_a_drop_impl_is_released_by_drop() {
    let src = |drop_impl: &str| {
        format!(
            "use std::alloc::{{alloc, dealloc, Layout}};
             struct Buf {{ p: *mut u8, l: Layout }}
             impl Buf {{ fn new(l: Layout) -> Self {{ Buf {{ p: unsafe {{ alloc(l) }}, l }} }} }}
             {drop_impl}
             fn k(l: Layout) -> usize {{ let b = Buf::new(l); b.l.size() }}"
        )
    };
    let with_drop = lower_one(&src(
        "impl Drop for Buf { fn drop(&mut self) { unsafe { dealloc(self.p, self.l) } } }",
    ));
    let without = lower_one(&src(""));
    let released = |f: &FnIr| f.roots.first().map(|r| r.released_by.clone());
    assert_eq!(released(&with_drop), Some(crate::ir::ReleasedBy::Drop));
    assert_eq!(released(&without), Some(crate::ir::ReleasedBy::Dealloc));
}

#[test]
fn writes_under_a_condition_carry_it_through_a_helper() {
    let f = lower_one(
        "fn owns(key: usize, part: usize, parts: usize) -> bool { key & (parts - 1) == part }
         fn parts() -> usize { 4 }
         fn k(out: &mut [u32], keys: &[u32], part: usize) {
             let n = parts();
             for &key in keys {
                 let key = key as usize;
                 if owns(key, part, n) { out[key] += 1; }
                 out[0] = 0;
             }
         }",
    );
    // The element read is a value of its own, computed by the body that reads it.
    let key = f
        .run_values
        .iter()
        .map(|(_, s)| s.clone())
        .find(|s| s.starts_with("key#"))
        .expect("the key's value");
    // The helper's integer result is one value, named after the helper.
    assert!(
        f.run_values.iter().any(|(_, s)| s.starts_with("parts#")),
        "{:?}",
        f.run_values
    );
    let guarded: Vec<_> = f.guards.iter().flat_map(|(_, g)| g).collect();
    assert!(!guarded.is_empty(), "{:?}", f.guards);
    let g = guarded[0];
    assert_eq!(g.cmp, crate::oracle::Cmp::Eq);
    assert!(
        g.lhs.mentions(&key) && g.rhs == crate::oracle::Expr::sym("part"),
        "{g:?}"
    );
    // The write after the `if` is not under it.
    let unguarded = f
        .stmts()
        .filter(|(_, _, s)| matches!(s.op, Op::Write { .. }))
        .count();
    assert_eq!(f.guards.len() + 1, unguarded, "{:?}", f.guards);
}

#[test]
fn elements_of_a_list_of_pointers_are_not_integers() {
    let f = lower_one(
        "fn k(ptrs: &[*mut u8], ids: &[u64]) { for &p in ptrs { let _ = p; } for &i in ids { let _ = i; } }",
    );
    let names: Vec<&str> = f.run_values.iter().map(|(_, s)| s.as_str()).collect();
    assert!(names.iter().any(|s| s.starts_with("i#")), "{names:?}");
    assert!(!names.iter().any(|s| s.starts_with("p#")), "{names:?}");
}

#[test]
fn tasks_spawned_round_by_round_are_instances_with_their_own_offsets() {
    let f = lower_one(
        "struct Pool { items: Vec<f32> }
         #[derive(Clone, Copy)] struct H { first: *mut f32 }
         impl H {
             fn of(pool: &mut Pool) -> H { H { first: pool.items.as_mut_ptr() } }
             unsafe fn get<'a>(self, i: usize) -> &'a mut f32 { unsafe { &mut *self.first.add(i) } }
         }
         fn k(pool: &mut Pool, batch: usize, count: usize) {
             let h = H::of(pool);
             std::thread::scope(|s| {
                 let mut start = 0;
                 while start < count {
                     s.spawn(move || { let x = unsafe { h.get(start) }; *x = 0.0; });
                     start += batch;
                 }
             });
         }",
    );
    // The spawn has an instance per round, the number of rounds unknown.
    let task = f
        .stmts()
        .find_map(|(_, _, s)| match &s.op {
            Op::Spawn { task, .. } => Some(task.clone()),
            _ => None,
        })
        .expect("a spawn");
    let round = task.iteration.expect("spawned on each round");
    assert!(round.symbol.starts_with("round#"), "{round:?}");
    // `start` changes from round to round.
    assert_eq!(f.loop_carried.len(), 1, "{:?}", f.loop_carried);
    assert!(f.loop_carried[0].starts_with("start#"));
    // The accessor's `&mut` from a raw pointer claims the element at `start`.
    let claim = f
        .stmts()
        .find_map(|(_, _, s)| match &s.op {
            Op::Claim {
                region: Some(r), ..
            } => Some(r.clone()),
            _ => None,
        })
        .expect("a claim");
    assert_eq!(claim.offset, crate::oracle::Expr::sym(&f.loop_carried[0]));
}

#[test]
fn a_lock_of_a_field_table_taken_in_a_method_is_a_write_of_the_callers_entry() {
    let (ir, _) = analyze_text(
        "use std::sync::RwLock;
         struct M { shards: Box<[RwLock<Vec<u64>>]> }
         impl M {
             fn new(n: usize) -> Self { M { shards: (0..n).map(|_| RwLock::new(Vec::new())).collect::<Vec<_>>().into_boxed_slice() } }
             fn pick(&self, k: u64) -> usize { k as usize % self.shards.len() }
             fn at(&self, i: usize) { self.shards[i].write().unwrap().push(1); }
             fn put(&self, k: u64) { let i = self.pick(k); self.at(i); }
         }
         fn user() { let m = M::new(64); m.at(3); m.put(9); }",
    );
    let by_name = |n: &str| {
        let f = ir.functions().find(|f| f.name == n).expect("the function");
        (f.clone(), ir.summary(f.id).cloned().expect("a summary"))
    };
    // Taking the lock writes entry `i` of the receiver's `shards`.
    let (_, at) = by_name("at");
    assert_eq!(at.field_writes.len(), 1, "{at:?}");
    assert_eq!(at.field_writes[0].field, "shards");
    assert_eq!(
        at.field_writes[0].index,
        Some(crate::oracle::Expr::sym("i"))
    );
    // Through a helper's index, an entry computed at run time.
    let (_, put) = by_name("put");
    assert_eq!(put.field_writes.len(), 1, "{put:?}");
    assert_eq!(put.field_writes[0].index, None);
    // The caller's object: entry 3, then an entry picked at run time, both 40 bytes
    // (a `RwLock` header before a `Vec`).
    let (user, _) = by_name("user");
    let entries: Vec<_> = user
        .stmts()
        .filter_map(|(_, _, s)| match &s.op {
            Op::Atomic {
                value, write: true, ..
            } => user.value(*value).view.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert_eq!(entries[0].offset, crate::oracle::Expr::int(3));
    assert_eq!(entries[0].elem_bytes, 40);
    let picked = entries[1]
        .offset
        .symbols()
        .into_iter()
        .next()
        .expect("an index");
    assert!(crate::models::is_run_time_index(&picked), "{picked}");
}
