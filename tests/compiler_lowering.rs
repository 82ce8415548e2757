//! The lowering of the compiler front end and the dataflow facts over its IR, one
//! behaviour per test: a small file is compiled with the driver and the IR it prints
//! (`--dump-ir FILE.rs:FUNCTION`) is read for the ops and facts the behaviour is about,
//! or, for the path searches the lints run, the findings that rest on them.

mod common;

use common::lint::findings;
use common::{bin, scratch};

/// What `--dump-ir TARGET` prints (`k.rs`: every function; `k.rs:NAME`: those named so)
/// for a file `k.rs` holding `source` (a crate of its own, std only). A compile error is
/// printed as an `error:` line instead of the IR.
fn dump(source: &str, target: &str) -> String {
    let dir = scratch("lowering", &[("k.rs", source)]);
    let output = bin()
        .current_dir(&dir)
        .args(["--dump-ir", target])
        .output()
        .expect("the linter runs");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The IR of `function` in a file holding `source`.
fn ir(source: &str, function: &str) -> String {
    let out = dump(source, &format!("k.rs:{function}"));
    assert!(
        out.contains(&format!("fn {function}")) || out.contains(&format!("::{function}")),
        "no IR for `{function}`:\n{out}"
    );
    out
}

/// How many ops (lines of a body, not of the facts after it) contain `needle`.
fn count(text: &str, needle: &str) -> usize {
    ops(text).filter(|l| l.contains(needle)).count()
}

/// The op lines of a dump: those of blocks, before each function's facts.
fn ops(text: &str) -> impl Iterator<Item = &str> {
    let mut in_facts = false;
    text.lines().filter(move |l| {
        if l.starts_with("fn ") {
            in_facts = false;
        }
        if l.trim() == "facts:" {
            in_facts = true;
        }
        !in_facts && l.starts_with("      ")
    })
}

/// Whether a dump releases something.
fn releases(text: &str) -> bool {
    ops(text).any(|l| l.trim_start().starts_with("release "))
}

/// The lines of the `facts:` section of a dump of one function.
fn facts(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| l.trim() != "facts:")
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .collect()
}

/// The blocks some value of the binding `name` is live into, by the facts of a dump.
fn live_into(text: &str, name: &str) -> Vec<usize> {
    facts(text)
        .into_iter()
        .filter_map(|l| {
            let (block, values) = l.trim().strip_prefix("live into bb")?.split_once(": ")?;
            let live = values
                .split(", ")
                .any(|v| v.split('%').next() == Some(name));
            live.then(|| block.parse().ok())?
        })
        .collect()
}

/// The blocks of a dump that are inside a loop.
fn loop_blocks(text: &str) -> Vec<usize> {
    text.lines()
        .filter_map(|l| {
            let (block, rest) = l.trim().strip_prefix("bb")?.split_once(' ')?;
            rest.starts_with("(loop depth")
                .then(|| block.parse().ok())?
        })
        .collect()
}

#[test]
fn an_owner_is_released_where_the_compiler_drops_it_and_not_after_a_move() {
    let source = "pub fn kept(n: usize) -> f32 { let v = vec![1.0f32; n]; v[0] }\n\
                  pub fn moved(n: usize) -> Vec<f32> { let v = vec![1.0f32; n]; v }\n\
                  pub fn consume(v: Vec<f32>) -> usize { v.len() }\n\
                  pub fn handed(n: usize) -> usize { let v = vec![1.0f32; n]; consume(v) }\n";
    assert_eq!(count(&ir(source, "kept"), "by scope end"), 1);
    let moved = ir(source, "moved");
    assert_eq!(count(&moved, "by scope end"), 0, "{moved}");
    assert!(moved.contains("returned"), "{moved}");
    let handed = ir(source, "handed");
    assert_eq!(count(&handed, "by scope end"), 0, "{handed}");
    assert!(handed.contains("passed to `consume`"), "{handed}");
}

#[test]
fn a_call_through_a_trait_runs_the_impl_the_compiler_resolves() {
    let source = "use std::alloc::{dealloc, Layout};\n\
                  pub trait Pool { unsafe fn retire(&mut self, p: *mut u8); }\n\
                  pub struct Freeing; pub struct Counting(usize);\n\
                  impl Pool for Freeing { unsafe fn retire(&mut self, p: *mut u8) { dealloc(p, Layout::new::<u64>()) } }\n\
                  impl Pool for Counting { unsafe fn retire(&mut self, _p: *mut u8) { self.0 += 1; } }\n\
                  pub unsafe fn through_freeing(f: &mut Freeing, p: *mut u8) { f.retire(p) }\n\
                  pub unsafe fn through_counting(c: &mut Counting, p: *mut u8) { c.retire(p) }\n";
    assert!(releases(&ir(source, "through_freeing")));
    assert!(!releases(&ir(source, "through_counting")));
}

#[test]
fn a_trait_method_on_a_type_parameter_runs_one_of_the_crate_impls() {
    let source = "use std::alloc::{dealloc, Layout};\n\
                  pub trait Sink { unsafe fn take(&mut self, p: *mut u8); }\n\
                  pub struct A; pub struct B;\n\
                  impl Sink for A { unsafe fn take(&mut self, p: *mut u8) { dealloc(p, Layout::new::<u64>()) } }\n\
                  impl Sink for B { unsafe fn take(&mut self, p: *mut u8) { dealloc(p, Layout::new::<u64>()) } }\n\
                  pub unsafe fn generic<S: Sink>(s: &mut S, p: *mut u8) { s.take(p) }\n";
    let out = ir(source, "generic");
    assert!(releases(&out), "both impls free: the call frees\n{out}");
}

#[test]
fn a_local_assigned_in_a_loop_has_a_value_per_assignment_joined_at_the_header() {
    let source = "pub struct Node { next: *mut Node }\n\
                  pub unsafe fn walk(mut at: *mut Node, end: *mut Node) -> usize {\n\
                  let mut n = 0; while at != end { at = (*at).next; n += 1; } n }\n";
    let out = ir(source, "walk");
    // The cursor read from memory is a load (another block each time), and the loop
    // header's value of `at` is assigned from the entry's and from the loop's.
    assert!(out.contains("load"), "{out}");
    let copies = out
        .lines()
        .filter(|l| l.trim_start().starts_with("at%") && l.contains("= at%"))
        .count();
    assert!(copies >= 2, "{out}");
}

#[test]
fn a_return_and_a_question_mark_are_exits_of_their_own() {
    let source = "use std::alloc::{alloc, dealloc, Layout};\n\
                  fn check(x: u8) -> Result<(), ()> { if x == 0 { Err(()) } else { Ok(()) } }\n\
                  pub unsafe fn k(l: Layout, bad: bool) -> Result<(), ()> {\n\
                  let p = alloc(l); if bad { return Err(()); } check(*p)?; dealloc(p, l); Ok(()) }\n";
    let out = ir(source, "k");
    assert_eq!(count(&out, "early return"), 1, "{out}");
    assert_eq!(count(&out, "`?` return"), 1, "{out}");
    assert_eq!(count(&out, "return"), 3, "{out}");
}

#[test]
fn a_pointer_stored_over_by_a_callee_through_an_out_parameter_is_loaded_again() {
    let source = "extern \"C\" { fn fill(out: *mut *mut f32) -> i32; }\n\
                  pub unsafe fn k(n: usize) -> f32 {\n\
                  let mut p: *mut f32 = vec![0.0f32; n].as_mut_ptr(); fill(&mut p); *p }\n";
    let out = ir(source, "k");
    assert!(out.contains("= load"), "{out}");
}

#[test]
fn a_struct_built_with_owned_memory_releases_it_through_its_drop() {
    let source = "use std::alloc::{alloc, dealloc, Layout};\n\
                  pub struct Buf { p: *mut u8 }\n\
                  impl Buf { pub fn new() -> Buf { Buf { p: unsafe { alloc(Layout::new::<u64>()) } } } }\n\
                  impl Drop for Buf { fn drop(&mut self) { unsafe { dealloc(self.p, Layout::new::<u64>()) } } }\n\
                  pub fn scoped() { let _b = Buf::new(); }\n";
    let out = ir(source, "scoped");
    assert!(out.contains("alloc"), "{out}");
    assert!(out.contains("by scope end"), "{out}");
}

#[test]
fn a_c_api_pairs_its_makers_and_destroyers_through_the_declared_types() {
    // The handle type is an alias of a pointer: the out-parameter is a pointer to a
    // pointer only once the alias is expanded, as the compiler has it.
    let source = "use std::mem::MaybeUninit;\n\
                  #[repr(C)] pub struct PlanOpaque { _p: [u8; 0] }\n\
                  pub type Plan = *mut PlanOpaque;\n\
                  extern \"C\" {\n\
                      fn planCreate(out: *mut Plan, n: i32) -> i32;\n\
                      fn planDestroy(p: Plan) -> i32;\n\
                      fn planRun(p: Plan) -> i32;\n\
                  }\n\
                  pub fn make(n: i32) -> Plan { let mut p = MaybeUninit::uninit(); unsafe { planCreate(p.as_mut_ptr(), n); p.assume_init() } }\n\
                  pub fn run_once(p: Plan) -> i32 { unsafe { let r = planRun(p); planDestroy(p); r } }\n\
                  pub fn run_only(p: Plan) -> i32 { unsafe { planRun(p) } }\n";
    let make = ir(source, "make");
    assert_eq!(count(&make, "= alloc r"), 1, "{make}");
    assert!(make.contains("released by planDestroy"), "{make}");
    assert!(make.contains("returns new memory"), "{make}");
    let run_once = ir(source, "run_once");
    assert!(
        ops(&run_once).any(|l| l.contains("release ") && l.contains("by `planDestroy`")),
        "{run_once}"
    );
    assert!(!releases(&ir(source, "run_only")));
}

#[test]
fn integers_a_call_computes_are_what_it_computes() {
    let source = "pub fn rounded(v: &mut [f32], n: usize, m: usize) {\n\
                  let k = n.div_ceil(4);\n\
                  v[k.min(m)] = 0.0;\n\
                  }\n";
    let dump = ir(source, "rounded");
    assert_eq!(
        count(&dump, "write v%1 at r0+min((n + 3)/4, m)[]"),
        1,
        "{dump}"
    );
}

#[test]
fn a_loop_over_a_slice_walks_its_elements_from_where_the_range_starts() {
    let source = "pub fn each(v: &mut Vec<f32>, lo: usize, hi: usize) {\n\
                  for x in &mut v[lo..hi] { *x = 1.0; }\n\
                  }\n";
    let dump = ir(source, "each");
    // The loop's symbol counts from 0; the element is `lo` on.
    assert_eq!(count(&dump, "at r0+lo + x#1[]"), 1, "{dump}");
}

#[test]
fn a_struct_a_callee_builds_owns_its_owning_fields() {
    let source = "pub struct Holder { data: Vec<f32> }\n\
                  pub fn make(n: usize) -> Holder { Holder { data: vec![0.0; n] } }\n\
                  pub fn user(n: usize) -> usize { let h = make(n); h.data.len() }\n\
                  pub fn kept(n: usize) -> Holder { make(n) }\n";
    let user = ir(source, "user");
    assert_eq!(count(&user, "release h.data"), 1, "{user}");
    let kept = ir(source, "kept");
    assert!(!releases(&kept), "{kept}");
}

#[test]
fn handles_collected_from_a_maker_are_owed_and_a_loop_releasing_each_releases_them() {
    let source = "#[repr(C)] pub struct Pt { _p: [u8; 0] }\n\
                  extern \"C\" { fn pt_new(x: f32) -> *mut Pt; fn pt_free(p: *mut Pt); fn pt_use(p: *const *mut Pt, n: usize); }\n\
                  fn make(x: &f32) -> *mut Pt { unsafe { pt_new(*x) } }\n\
                  pub fn kept(xs: &[f32]) { let h: Vec<*mut Pt> = xs.iter().map(make).collect(); unsafe { pt_use(h.as_ptr(), h.len()) } }\n\
                  pub fn freed(xs: &[f32]) { let h: Vec<*mut Pt> = xs.iter().map(|x| make(x)).collect(); for p in h { unsafe { pt_free(p) } } }\n";
    let kept = ir(source, "kept");
    assert!(kept.contains("released by pt_free"), "{kept}");
    // Dropping the vector releases none of the handles.
    assert!(!releases(&kept), "{kept}");
    let freed = ir(source, "freed");
    assert!(freed.contains("released by pt_free"), "{freed}");
    // Released once, where the loop ends, not once per round inside it.
    let released: Vec<&str> = ops(&freed)
        .filter(|l| l.trim_start().starts_with("release "))
        .collect();
    assert_eq!(released.len(), 1, "{freed}");
    assert!(released[0].contains("h%"), "{freed}");
}

#[test]
fn a_destructor_handing_its_pointer_to_its_one_foreign_call_releases_it() {
    let source = "#[repr(C)] pub struct Obj { _p: [u8; 0] }\n\
                  extern \"C\" { fn obj_decref(o: *mut Obj); fn obj_flush(o: *mut Obj); }\n\
                  pub struct One(*mut Obj);\n\
                  impl Drop for One { fn drop(&mut self) { unsafe { obj_decref(self.0) } } }\n\
                  pub struct Two(*mut Obj);\n\
                  impl Drop for Two { fn drop(&mut self) { unsafe { obj_flush(self.0); obj_decref(self.0) } } }\n";
    let one = ir(source, "drop");
    // Both destructors are dumped: only the one with a single foreign call releases.
    let released: Vec<&str> = ops(&one)
        .filter(|l| l.trim_start().starts_with("release "))
        .collect();
    assert_eq!(released.len(), 1, "{one}");
    assert!(released[0].contains("by `obj_decref`"), "{one}");
}

#[test]
fn cells_of_a_struct_shared_by_reference_are_bytes_of_its_object() {
    let source = "use std::sync::atomic::{AtomicUsize, Ordering};\n\
                  pub struct Chan { hits: AtomicUsize, data: Vec<f32>, misses: AtomicUsize }\n\
                  impl Chan {\n\
                      pub fn hit(&self) { self.hits.fetch_add(1, Ordering::Relaxed); }\n\
                      pub fn first(&self) -> f32 { self.data[0] }\n\
                  }\n";
    let hit = ir(source, "hit");
    // The counter is 8 bytes of the 40-byte object, where the compiler put it.
    assert!(hit.contains("1-byte elements, shape [40]"), "{hit}");
    assert_eq!(count(&hit, "atomic write self.hits"), 1, "{hit}");
    assert!(ops(&hit).any(|l| l.contains("[8:1]")), "{hit}");
    // A buffer field still reaches the caller's buffer.
    let first = ir(source, "first");
    assert!(first.contains("`self.data`"), "{first}");
}

#[test]
fn a_value_moved_into_a_closure_is_dropped_where_the_closure_returns() {
    let source = "pub fn moved(w: Option<Vec<f32>>) -> Option<*const f32> { w.map(|v| v.as_ptr()) }\n\
                  pub fn kept(w: &Option<Vec<f32>>) -> Option<*const f32> { w.as_ref().map(|v| v.as_ptr()) }\n\
                  pub fn each(s: Vec<String>) -> Vec<*const u8> { s.into_iter().map(|x| x.as_ptr()).collect() }\n";
    let moved = ir(source, "moved");
    assert_eq!(
        count(&moved, "by the end of the closure it was moved into"),
        1,
        "{moved}"
    );
    // The pointer the closure returns points into the payload it was given.
    assert!(ops(&moved).any(|l| l.contains("ptr into r0")), "{moved}");
    let kept = ir(source, "kept");
    assert!(!releases(&kept), "{kept}");
    let each = ir(source, "each");
    assert_eq!(
        count(&each, "by the end of the closure it was moved into"),
        1,
        "{each}"
    );
}

#[test]
fn a_method_named_like_a_producers_fold_is_no_producer() {
    // A method named `fold_with` outside an impl of rayon's producer traits is a plain
    // function: pieces are known by the trait the compiler resolves, never by a name.
    // (These crates have no rayon; the fixture
    // `alias_race/pieces_that_walk_a_shared_index_whole` covers rayon's own trait.)
    let source = "pub struct P { ids: Vec<usize>, lo: usize }\n\
                  impl P { pub fn fold_with(self) -> usize { self.ids[self.lo] } }\n";
    let dump = ir(source, "fold_with");
    assert!(!dump.contains("parallel Pieces"), "{dump}");
}

#[test]
fn an_assignment_through_a_pointer_drops_what_it_replaces_and_fresh_memory_holds_none() {
    let source = "use std::alloc::{alloc, Layout};\n\
                  pub unsafe fn names(n: usize) -> *mut String {\n\
                      let p = alloc(Layout::array::<String>(n).unwrap()) as *mut String;\n\
                      *p = String::new();\n\
                      p.add(1).write(String::new());\n\
                      p\n\
                  }\n\
                  pub unsafe fn floats(n: usize) -> *mut f32 {\n\
                      let p = alloc(Layout::array::<f32>(n).unwrap()) as *mut f32;\n\
                      *p = 1.0;\n\
                      p\n\
                  }\n\
                  pub fn zeroed() -> Vec<String> { let mut v = vec![String::new(); 4]; v[0] = String::from(\"a\"); v }\n";
    let names = ir(source, "names");
    // The root knows its memory holds no value yet.
    assert!(names.contains("uninitialised"), "{names}");
    assert_eq!(count(&names, "drop what is stored in"), 1, "{names}");
    // The assignment's store is a write; `write` of a `String` stores an owner into
    // its slot without dropping what was there.
    assert_eq!(count(&names, "write "), 1, "{names}");
    assert_eq!(count(&names, "store an owner through"), 1, "{names}");
    // A float has nothing to drop.
    assert_eq!(count(&ir(source, "floats"), "drop what is stored in"), 0);
    let zeroed = ir(source, "zeroed");
    assert_eq!(count(&zeroed, "drop what is stored in"), 1, "{zeroed}");
    assert!(!zeroed.contains("uninitialised"), "{zeroed}");
}

#[test]
fn a_read_of_an_owned_value_is_a_duplicate_until_a_call_that_may_unwind_drops_it() {
    let source = "use std::ptr;\n\
                  pub fn through<T, F: FnOnce(T) -> T>(slot: &mut T, f: F) {\n\
                      unsafe { let old = ptr::read(slot); let new = f(old); ptr::write(slot, new); }\n\
                  }\n\
                  pub fn copied<T: Copy, F: FnOnce(T) -> T>(slot: &mut T, f: F) {\n\
                      unsafe { let old = ptr::read(slot); ptr::write(slot, f(old)); }\n\
                  }\n\
                  pub fn from_raw<T>(p: *mut T) -> T { unsafe { ptr::read(p) } }\n\
                  pub fn resolved(v: &mut Vec<String>) -> usize { v.push(String::new()); v.len() }\n\
                  pub fn shortened<T>(v: &mut Vec<T>) { unsafe { v.set_len(0) } }\n\
                  struct Abort;\n\
                  impl Drop for Abort { fn drop(&mut self) { std::process::abort() } }\n\
                  pub fn guarded<T, F: FnOnce(T) -> T>(slot: &mut T, f: F) {\n\
                      let g = Abort;\n\
                      unsafe { let old = ptr::read(slot); ptr::write(slot, f(old)); }\n\
                      std::mem::forget(g);\n\
                  }\n";
    let through = ir(source, "through");
    assert_eq!(
        count(
            &through,
            "old%3: unknown = bitwise copy of what is stored in slot"
        ),
        1,
        "{through}"
    );
    // The closure is the caller's: it may unwind, dropping what it was given.
    let unwinds: Vec<&str> = ops(&through)
        .filter(|l| l.contains("may unwind (`f`)"))
        .collect();
    assert_eq!(unwinds.len(), 1, "{through}");
    assert!(unwinds[0].contains("old%3"), "{through}");
    // The write back is a write of the referent the copy came from.
    assert_eq!(count(&through, "write slot%1"), 1, "{through}");
    // Nothing to drop twice, memory nothing here owns, calls the compiler resolves.
    assert_eq!(count(&ir(source, "copied"), "bitwise copy"), 0);
    assert_eq!(count(&ir(source, "from_raw"), "bitwise copy"), 0);
    assert_eq!(count(&ir(source, "resolved"), "may unwind"), 0);
    assert_eq!(count(&ir(source, "shortened"), "set the length of %2"), 1);
    // The unwinding runs a guard's `Drop`: nothing is said to be dropped by it.
    assert_eq!(count(&ir(source, "guarded"), "may unwind"), 0);
}

#[test]
fn a_copy_within_one_owners_memory_duplicates_its_values_there() {
    let source = "use std::ptr;\n\
                  pub fn shift<T>(v: &mut Vec<T>, at: usize) {\n\
                      let p = v.as_mut_ptr();\n\
                      unsafe { ptr::copy(p.add(at), p.add(at + 1), v.len() - at); }\n\
                  }\n\
                  pub fn shift_floats(v: &mut Vec<f32>, at: usize) {\n\
                      let p = v.as_mut_ptr();\n\
                      unsafe { ptr::copy(p.add(at), p.add(at + 1), v.len() - at); }\n\
                  }\n\
                  pub fn across<T>(a: &mut Vec<T>, b: &mut Vec<T>) {\n\
                      unsafe { ptr::copy_nonoverlapping(a.as_ptr(), b.as_mut_ptr(), a.len()); }\n\
                  }\n";
    assert_eq!(count(&ir(source, "shift"), "bitwise copy into"), 1);
    assert_eq!(count(&ir(source, "shift_floats"), "bitwise copy"), 0);
    assert_eq!(count(&ir(source, "across"), "bitwise copy"), 0);
}

#[test]
fn an_owner_rebuilt_from_a_pointer_releases_it_and_is_an_owner_of_its_own() {
    let source = "pub fn rebuilt(mut v: Vec<u32>) -> usize {\n\
                  let w = unsafe { Vec::from_raw_parts(v.as_mut_ptr(), v.len(), v.capacity()) };\n\
                  std::mem::forget(v); w.len() }\n\
                  pub fn boxed(b: Box<u32>) -> u32 { let p = Box::into_raw(b); \
                  let again = unsafe { Box::from_raw(p) }; *again }\n";
    let rebuilt = ir(source, "rebuilt");
    assert_eq!(count(&rebuilt, "by Vec::from_raw"), 1, "{rebuilt}");
    // The rebuilt vector owns the buffer and drops it at the end of its scope.
    assert!(
        ops(&rebuilt).any(|l| l.contains("w%") && l.contains("owns r")),
        "{rebuilt}"
    );
    assert_eq!(count(&ir(source, "boxed"), "by Box::from_raw"), 1);
}

#[test]
fn a_literal_vector_and_a_c_string_own_buffers_their_drops_release() {
    let source = "pub fn literal() -> u32 { let v = vec![1u32, 2, 3]; v[1] }\n\
                  pub fn c_string(s: &str) -> usize { let c = std::ffi::CString::new(s).unwrap(); \
                  c.as_bytes().len() }\n";
    let literal = ir(source, "literal");
    assert!(literal.contains("alloc r0"), "{literal}");
    assert_eq!(count(&literal, "by scope end"), 1, "{literal}");
    let c_string = ir(source, "c_string");
    assert!(c_string.contains("alloc r"), "{c_string}");
    assert_eq!(count(&c_string, "by scope end"), 1, "{c_string}");
}

#[test]
fn a_value_wrapped_by_a_standard_constructor_is_returned_with_it() {
    let source = "use std::cell::Cell;\n\
                  pub struct Arena { chunk: Cell<*mut u8> }\n\
                  pub fn arena(n: usize) -> Arena { \
                  let chunk = unsafe { std::alloc::alloc(std::alloc::Layout::array::<u8>(n).unwrap()) }; \
                  Arena { chunk: Cell::new(chunk) } }\n";
    let arena = ir(source, "arena");
    assert!(
        ops(&arena).any(|l| l.contains("chunk") && l.contains("returned")),
        "{arena}"
    );
}

#[test]
fn a_pointer_loaded_from_an_atomic_is_read_from_memory_each_time() {
    let source = "use std::sync::atomic::{AtomicPtr, Ordering};\n\
                  pub struct Node { next: AtomicPtr<Node> }\n\
                  pub unsafe fn free_list(mut cur: *mut Node) {\n\
                  while !cur.is_null() { let next = (*cur).next.load(Ordering::Relaxed); \
                  drop(Box::from_raw(cur)); cur = next; } }\n";
    let free_list = ir(source, "free_list");
    assert!(
        ops(&free_list).any(|l| l.contains("next") && l.contains("= load r")),
        "{free_list}"
    );
}

#[test]
fn a_placeholder_never_initialised_swapped_into_a_place_is_a_duplicate_until_written() {
    let source = "#![allow(deprecated, invalid_value)]\n\
                  pub fn swap_in(slot: &mut Vec<u8>, f: impl Fn() -> Vec<u8>) -> Vec<u8> {\n\
                  let old = std::mem::replace(slot, unsafe { std::mem::uninitialized() });\n\
                  let new = f();\n\
                  let _ = std::mem::replace(slot, new);\n\
                  old }\n\
                  pub fn count_in(slot: &mut u64, f: impl Fn() -> u64) -> u64 {\n\
                  let old = std::mem::replace(slot, unsafe { std::mem::zeroed() });\n\
                  *slot = f(); old }\n";
    let swap_in = ir(source, "swap_in");
    assert_eq!(
        count(&swap_in, "placeholder never initialised"),
        1,
        "{swap_in}"
    );
    assert!(count(&swap_in, "may unwind") >= 1, "{swap_in}");
    // A number has nothing to drop: no placeholder.
    let count_in = ir(source, "count_in");
    assert_eq!(
        count(&count_in, "placeholder never initialised"),
        0,
        "{count_in}"
    );
}

#[test]
fn a_length_set_to_itself_and_more_grows() {
    let source = "pub unsafe fn grow(v: &mut Vec<String>) { v.set_len(v.len() + 1) }\n\
                  pub unsafe fn shrink(v: &mut Vec<String>) { v.set_len(v.len() - 1) }\n\
                  pub unsafe fn clear(v: &mut Vec<String>) { v.set_len(0) }\n";
    assert_eq!(count(&ir(source, "grow"), ", longer"), 1);
    assert_eq!(count(&ir(source, "shrink"), ", longer"), 0);
    let clear = ir(source, "clear");
    assert_eq!(count(&clear, "set the length of"), 1, "{clear}");
    assert_eq!(count(&clear, ", longer"), 0, "{clear}");
}

#[test]
fn an_allocator_method_of_any_trait_releases_and_a_realloc_hands_the_block_over() {
    let source = "use std::alloc::Layout; use std::ptr::NonNull;\n\
                  pub trait Arena {\n\
                      fn allocate(&self, l: Layout) -> NonNull<u8>;\n\
                      unsafe fn deallocate(&self, p: NonNull<u8>, l: Layout);\n\
                      unsafe fn note(&self, p: NonNull<u8>, l: Layout);\n\
                      unsafe fn regrow(&self, p: NonNull<u8>, old: Layout, new: Layout) -> NonNull<u8> {\n\
                          if new.size() <= old.size() { return p; }\n\
                          let q = self.allocate(new); self.deallocate(p, old); q\n\
                      }\n\
                  }\n\
                  pub unsafe fn give_back<A: Arena>(a: &A, p: NonNull<u8>) { a.deallocate(p, Layout::new::<u64>()) }\n\
                  pub unsafe fn only_noted<A: Arena>(a: &A, p: NonNull<u8>) { a.note(p, Layout::new::<u64>()) }\n\
                  pub unsafe fn grown<A: Arena>(a: &A, p: NonNull<u8>) -> NonNull<u8> {\n\
                      a.regrow(p, Layout::new::<u64>(), Layout::new::<[u64; 2]>())\n\
                  }\n";
    let back = ir(source, "give_back");
    assert!(
        releases(&back),
        "`deallocate(ptr, layout)` releases\n{back}"
    );
    let noted = ir(source, "only_noted");
    assert!(
        !releases(&noted),
        "another method of the same shape does not\n{noted}"
    );
    let grown = ir(source, "grown");
    assert!(
        !releases(&grown),
        "a realloc frees nothing it returns\n{grown}"
    );
}

#[test]
fn the_items_of_a_zip_are_pairs_of_the_items_of_both_sides() {
    let source = "pub fn both(x: &mut [f32], y: &mut [f32]) {\n\
                  \x20   for (a, b) in x.iter_mut().zip(y.iter_mut()) { *a = 1.0; *b = 2.0; }\n\
                  }\n\
                  pub fn numbered(x: &mut [f32], y: &[f32]) {\n\
                  \x20   for (i, (a, b)) in x.iter_mut().zip(y).enumerate() { *a = *b + i as f32; }\n\
                  }\n";
    let both = ir(source, "both");
    // Each half is the element of its own slice at the same step.
    let writes: Vec<&str> = ops(&both).filter(|l| l.contains("write ")).collect();
    assert_eq!(writes.len(), 2, "{both}");
    let step = |line: &str, root: &str| {
        let at = line.find(&format!("at {root}+"))? + root.len() + 4;
        Some(line[at..].split('[').next()?.to_string())
    };
    let (x_step, y_step) = (step(writes[0], "r0"), step(writes[1], "r1"));
    assert!(x_step.is_some() && x_step == y_step, "{both}");
    // Under an `enumerate`, the pair is the second half of the item.
    let numbered = ir(source, "numbered");
    assert_eq!(count(&numbered, "write a"), 1, "{numbered}");
    assert!(
        ops(&numbered).any(|l| l.contains("write a") && l.contains("at r0+")),
        "{numbered}"
    );
}

#[test]
fn branches_on_one_flag_take_the_same_side() {
    // Allocated and released under one flag: no path allocates and skips the release.
    // Released under the other side of the flag, the memory is never released.
    let source = "use std::alloc::{alloc, dealloc, Layout};\n\
                  pub unsafe fn same(need: bool, l: Layout) {\n\
                  let p = if need { alloc(l) } else { std::ptr::null_mut() };\n\
                  if need { dealloc(p, l) } }\n\
                  pub unsafe fn opposite(need: bool, l: Layout) {\n\
                  let p = if need { alloc(l) } else { std::ptr::null_mut() };\n\
                  if !need { dealloc(p, l) } }\n";
    let leaks = findings("leak", source);
    assert_eq!(leaks.len(), 1, "{leaks:#?}");
    assert_eq!(leaks[0].line, 6, "{leaks:#?}");
}

#[test]
fn a_reassigned_flag_does_not_correlate_branches() {
    // The flag the release tests is not the one the allocation tested when `stop`
    // clears it in between; clearing another variable changes nothing.
    let source = "use std::alloc::{alloc, dealloc, Layout};\n\
                  pub unsafe fn reset(mut need: bool, stop: bool, l: Layout) {\n\
                  let p = if need { alloc(l) } else { std::ptr::null_mut() };\n\
                  if stop { need = false; }\n\
                  if need { dealloc(p, l) } }\n\
                  pub unsafe fn other(need: bool, stop: bool, l: Layout) -> bool {\n\
                  let p = if need { alloc(l) } else { std::ptr::null_mut() };\n\
                  let mut go = need;\n\
                  if stop { go = false; }\n\
                  if need { dealloc(p, l) } go }\n";
    let leaks = findings("leak", source);
    assert_eq!(leaks.len(), 1, "{leaks:#?}");
    assert_eq!(leaks[0].line, 3, "{leaks:#?}");
}

#[test]
fn early_return_is_a_path_without_the_release() {
    let source = "use std::alloc::{alloc, dealloc, Layout};\n\
                  pub unsafe fn early(bad: bool, l: Layout) {\n\
                  let p = alloc(l);\n\
                  if bad { return; }\n\
                  dealloc(p, l) }\n\
                  pub unsafe fn released_first(bad: bool, l: Layout) {\n\
                  let p = alloc(l);\n\
                  if bad { dealloc(p, l); return; }\n\
                  dealloc(p, l) }\n";
    let leaks = findings("leak", source);
    assert_eq!(leaks.len(), 1, "{leaks:#?}");
    // The path starts at the allocation and ends at the `return`.
    assert_eq!(leaks[0].line, 3, "{leaks:#?}");
    assert!(
        leaks[0]
            .labels
            .iter()
            .any(|(line, l)| *line == 4 && l.contains("returns here without releasing")),
        "{leaks:#?}"
    );
}

#[test]
fn a_use_after_a_statement_is_found_after_it_and_none_after_the_last_use() {
    // `a` is used after `b` is made in `after`; in `last` its last use comes before.
    let source = "pub unsafe fn after(p: *mut f32, i: usize, j: usize) {\n\
                  let a = &mut *p.add(i);\n\
                  let b = &mut *p.add(j);\n\
                  *b = 2.0;\n\
                  *a = 1.0; }\n\
                  pub unsafe fn last(p: *mut f32, i: usize, j: usize) {\n\
                  let a = &mut *p.add(i);\n\
                  *a = 1.0;\n\
                  let b = &mut *p.add(j);\n\
                  *b = 2.0; }\n";
    let found = findings("unsafe_inplace", source);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].line, 3, "{found:#?}");
    assert!(
        found[0].has_label("while `a` is still in use"),
        "{found:#?}"
    );
}

#[test]
fn a_use_at_the_top_of_a_loop_follows_a_statement_around_the_back_edge() {
    // In `around`, the next round uses `a` after this round made `b`.
    let source = "pub unsafe fn around(p: *mut f32, i: usize, j: usize, n: usize) {\n\
                  let a = &mut *p.add(i);\n\
                  for _ in 0..n {\n\
                  *a += 1.0;\n\
                  let b = &mut *p.add(j);\n\
                  *b = 2.0; } }\n\
                  pub unsafe fn before(p: *mut f32, i: usize, j: usize, n: usize) {\n\
                  let a = &mut *p.add(i);\n\
                  *a += 1.0;\n\
                  for _ in 0..n {\n\
                  let b = &mut *p.add(j);\n\
                  *b = 2.0; } }\n";
    let found = findings("unsafe_inplace", source);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].line, 5, "{found:#?}");
}

#[test]
fn a_release_on_one_branch_joins_to_allocated_or_released() {
    let source = "use std::alloc::{alloc, dealloc, Layout};\n\
                  pub unsafe fn one(flag: bool, l: Layout) -> usize {\n\
                  let p = alloc(l); if flag { dealloc(p, l) } l.size() }\n\
                  pub unsafe fn both(flag: bool, l: Layout) -> usize {\n\
                  let p = alloc(l); if flag { dealloc(p, l) } else { dealloc(p, l) } l.size() }\n";
    let state_at_return = |function: &str| -> Vec<String> {
        let dump = ir(source, function);
        facts(&dump)
            .into_iter()
            .filter_map(|l| {
                Some(
                    l.trim()
                        .strip_prefix("at return in bb")?
                        .split_once(": ")?
                        .1,
                )
            })
            .map(str::to_string)
            .collect()
    };
    assert_eq!(state_at_return("one"), ["r0: allocated | released"]);
    assert_eq!(state_at_return("both"), ["r0: released"]);
}

#[test]
fn a_second_release_sees_the_first() {
    let source = "use std::alloc::{alloc, dealloc, Layout};\n\
                  pub unsafe fn twice(l: Layout) {\n\
                  let p = alloc(l);\n\
                  dealloc(p, l);\n\
                  dealloc(p, l); }\n\
                  pub unsafe fn once(l: Layout) {\n\
                  let p = alloc(l);\n\
                  dealloc(p, l); }\n";
    let found = findings("double_free", source);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].line, 5, "{found:#?}");
    assert!(
        found[0]
            .labels
            .iter()
            .any(|(line, l)| *line == 4 && l.contains("first deallocated here")),
        "{found:#?}"
    );
}

#[test]
fn a_value_used_after_a_loop_is_live_around_it() {
    let source = "pub fn after(a: &mut [f32], n: usize) { for _ in 0..n {} a[0] = 1.0; }\n\
                  pub fn before(a: &mut [f32], n: usize) { a[0] = 1.0; for _ in 0..n {} }\n";
    let after = ir(source, "after");
    let (live, looped) = (live_into(&after, "a"), loop_blocks(&after));
    assert!(!looped.is_empty(), "{after}");
    // Live into the entry, every block of the loop, and the block after it.
    assert!(live.contains(&0), "{after}");
    assert!(looped.iter().all(|b| live.contains(b)), "{after}");
    assert!(live.len() > looped.len() + 1, "{after}");
    let before = ir(source, "before");
    let (live, looped) = (live_into(&before, "a"), loop_blocks(&before));
    assert!(!looped.is_empty(), "{before}");
    assert!(!looped.iter().any(|b| live.contains(b)), "{before}");
}

#[test]
fn a_merged_value_may_point_to_both_roots() {
    let source = "pub fn merged(c: bool, a: &mut [f32], b: &mut [f32]) {\n\
                  let d = if c { a } else { b }; d[0] = 0.0; }\n\
                  pub fn one(a: &mut [f32], b: &mut [f32]) { let d = a; d[0] = 0.0; b[0] = 0.0; }\n";
    let merged = ir(source, "merged");
    assert!(
        facts(&merged)
            .iter()
            .any(|l| l.trim().starts_with("d%") && l.ends_with("may point to r0, r1")),
        "{merged}"
    );
    let one = ir(source, "one");
    assert!(
        !facts(&one).iter().any(|l| l.contains("may point to")),
        "{one}"
    );
}

#[test]
fn pointer_derived_views_are_unchecked_and_safe_slices_are_not() {
    // Both functions write element 2 from two threads when `i = 2` and `j = 0`, as the
    // oracle sees it; safe slices are bounds-checked, a view made from a pointer is not.
    let source = "pub fn safe(v: &mut Vec<f32>, i: usize, j: usize) {\n\
                  let (a, b) = v.split_at_mut(2);\n\
                  std::thread::scope(|s| {\n\
                  s.spawn(|| a[i] = 1.0);\n\
                  s.spawn(|| b[j] = 2.0); }); }\n\
                  pub fn raw(v: &mut Vec<f32>, i: usize, j: usize) {\n\
                  let p = v.as_mut_ptr();\n\
                  let r = unsafe { std::slice::from_raw_parts_mut(p.add(2), 4) };\n\
                  let (a, _b) = v.split_at_mut(2);\n\
                  std::thread::scope(|s| {\n\
                  s.spawn(|| a[i] = 1.0);\n\
                  s.spawn(|| r[j] = 2.0); }); }\n";
    let races = findings("alias_race", source);
    assert_eq!(races.len(), 1, "{races:#?}");
    assert_eq!(races[0].line, 11, "{races:#?}");
    assert!(races[0].has_label("writes `r`"), "{races:#?}");
}

#[test]
fn a_zip_stops_with_its_shortest_source() {
    let source = "pub fn zipped(a: &mut [f32], b: &[f32]) {\n\
                  std::thread::scope(|s| { for (x, y) in a.iter_mut().zip(b.iter()) {\n\
                  s.spawn(move || *x = *y); } }); }\n\
                  pub fn single(a: &mut [f32]) {\n\
                  std::thread::scope(|s| { for x in a.iter_mut() { s.spawn(move || *x = 1.0); } }); }\n";
    let spawns = |function: &str| -> Vec<String> {
        let dump = ir(source, function);
        ops(&dump)
            .filter(|l| l.trim_start().starts_with("spawn "))
            .map(str::to_string)
            .collect()
    };
    let zipped = spawns("zipped");
    assert_eq!(zipped.len(), 1, "{zipped:?}");
    assert!(
        zipped[0].contains(" in 0..min(a.len, b.len) "),
        "{zipped:?}"
    );
    let single = spawns("single");
    assert_eq!(single.len(), 1, "{single:?}");
    assert!(single[0].contains(" in 0..a.len "), "{single:?}");
}

#[test]
fn fields_borrowed_from_a_struct_local_are_its_bytes() {
    let source = "#[repr(C)] pub struct Stats { hits: u64, misses: u32, bins: [u64; 4] }\n\
                  pub fn bump(a: u64) -> Stats {\n\
                  let mut s = Stats { hits: a, misses: 0, bins: [a; 4] };\n\
                  let h = &mut s.hits; *h += 1;\n\
                  let m = &mut s.misses; *m = 2;\n\
                  s }\n";
    let bump = ir(source, "bump");
    // The local is an object of the size the compiler gives it, counted in bytes.
    assert!(
        bump.lines()
            .any(|l| l.contains("`s`: ") && l.contains("1-byte elements, shape [48]")),
        "{bump}"
    );
    let writes: Vec<&str> = ops(&bump).filter(|l| l.contains("write ")).collect();
    assert_eq!(writes.len(), 2, "{bump}");
    assert!(
        writes[0].contains("write h%") && writes[0].contains("+0[8:1]"),
        "{bump}"
    );
    assert!(
        writes[1].contains("write m%") && writes[1].contains("+8[4:1]"),
        "{bump}"
    );
}

#[test]
fn annotation_errors_are_returned_not_panicked() {
    let source = "#[tensor_lint::free(q)]\npub fn f(p: *mut u8) { let _ = p; }\n";
    let out = ir(source, "f");
    assert_eq!(
        out.matches("error: cannot read `tensor_lint::free`: no parameter `q`")
            .count(),
        1,
        "{out}"
    );
    assert_eq!(
        out.lines().filter(|l| l.starts_with("fn ")).count(),
        1,
        "{out}"
    );
}

#[test]
fn recursive_functions_get_summaries_from_each_other() {
    // Only `b` writes `v` itself; `a` writes it through `b`, and `b` calls `a` back.
    let source = "pub fn a(n: usize, v: &mut [f32]) { if n > 0 { b(n - 1, v) } }\n\
                  pub fn b(n: usize, v: &mut [f32]) { v[0] = 0.0; if n > 0 { a(n - 1, v) } }\n";
    for function in ["a", "b"] {
        let dump = ir(source, function);
        assert!(dump.contains("  summary: writes [1]\n"), "{dump}");
    }
}

#[test]
fn callees_say_which_elements_they_write_through_a_pointer() {
    let source = "pub unsafe fn mark(bits: *mut u8, i: usize) { *bits.add(i >> 3) |= 1; }\n\
                  pub unsafe fn row(c: *mut f32, n: usize) { for j in 0..n { *c.add(j) = 0.0; } }\n\
                  pub unsafe fn anywhere(c: *mut f32, v: &[usize]) { *c.add(v[0]) = 0.0; }\n\
                  pub fn marks(bits: &mut [u8], i: usize) { unsafe { mark(bits.as_mut_ptr(), i) } }\n\
                  pub fn rows(c: &mut [f32], n: usize) { unsafe { row(c.as_mut_ptr().add(n), n) } }\n";
    // The caller writes the element the callee's parameters name, placed at its
    // argument: `i / 8`, and `n` elements from where its pointer points.
    let marks = ir(source, "marks");
    let writes_at = |text: &str, at: &str| {
        ops(text)
            .filter(|l| l.contains("write ") && l.contains(at))
            .count()
    };
    assert_eq!(count(&marks, "write "), 1, "{marks}");
    assert_eq!(writes_at(&marks, "at r0+i/8[]"), 1, "{marks}");
    // `|=` reads the element it writes, and sets no length.
    assert_eq!(count(&marks, "at r0+i/8[]"), 2, "{marks}");
    assert_eq!(count(&marks, "set the length"), 0, "{marks}");
    let rows = ir(source, "rows");
    assert_eq!(count(&rows, "write "), 1, "{rows}");
    assert_eq!(writes_at(&rows, "at r0+n[n:1]"), 1, "{rows}");
    // A place read from memory is no place over the parameters: the write stays whole.
    let anywhere = ir(source, "anywhere");
    assert!(
        anywhere.contains("summary: reads [1], writes [0]\n"),
        "{anywhere}"
    );
    let writes: Vec<&str> = ops(&anywhere).filter(|l| l.contains("write ")).collect();
    assert_eq!(writes.len(), 1, "{anywhere}");
    assert!(!writes[0].contains(" at "), "{anywhere}");
}

#[test]
fn the_dump_filter_matches_a_name_and_a_type_path() {
    let source = "pub struct P;\n\
                  impl P { pub fn get(&self) {} }\n\
                  pub fn get() {}\n\
                  pub fn other() {}\n";
    let functions = |target: &str| -> Vec<String> {
        dump(source, target)
            .lines()
            .filter(|l| l.starts_with("fn "))
            .map(|l| l.split(" @ ").next().unwrap_or(l).to_string())
            .collect()
    };
    assert_eq!(functions("k.rs"), ["fn P::get", "fn get", "fn other"]);
    assert_eq!(functions("k.rs:get"), ["fn P::get", "fn get"]);
    assert_eq!(functions("k.rs:P::get"), ["fn P::get"]);
    assert!(dump(source, "k.rs:nothing").is_empty());
}

#[test]
fn an_array_passed_by_value_is_the_callees_own_copy() {
    let source = "pub fn bump(mut bins: [u64; 4], t: usize) -> u64 { bins[t % 4] += 1; bins[0] }\n\
                  pub fn caller(b: [u64; 4]) -> u64 { bump(b, 1) }\n\
                  pub fn by_ref(bins: &mut [u64; 4], t: usize) { bins[t % 4] += 1; }\n\
                  pub fn caller_ref(b: &mut [u64; 4]) { by_ref(b, 1) }\n";
    let caller = ir(source, "caller");
    assert_eq!(count(&caller, "write "), 0, "{caller}");
    let caller_ref = ir(source, "caller_ref");
    assert_eq!(count(&caller_ref, "write "), 1, "{caller_ref}");
}
