//! Pointers that outlive the variable they point into: a raw pointer made from a
//! borrow of a local or a temporary (`&tmp as *const _`, `rect.raw()` on a temporary
//! `Rect`, `&mut scratch` in a struct the function returns) that is used after the
//! variable's storage is gone (`StorageDead`: the end of its statement, match arm or
//! scope), or returned, when every local of the function is gone.
//!
//! The borrow checker sees none of this once the reference has become a raw pointer
//! (or a field of a struct of raw pointers), so the code compiles. A forward dataflow
//! over the function's MIR follows, for each local, the locals whose storage it may
//! point into: through copies, casts, reborrows, the fields of structs it is stored in,
//! and what calls return from it (a method that returns a pointer into its receiver).
//! A use is a dereference, a call given the pointer (or a borrow of a struct holding
//! it), and the return of it.

use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_hir::def_id::LocalDefId;
use rustc_middle::mir::{
    self, BasicBlock, Local, Operand, Place, Rvalue, StatementKind, TerminatorKind,
};
use rustc_middle::ty::{self, Ty, TyCtxt};

use tensor_lint_analyzer::ir::DanglingPointer;

use crate::files::Files;

/// A local's storage a pointer may reach.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Target {
    local: Local,
    /// The place borrowed holds pointers itself (`&bucket`, `&iter`): a call given the
    /// borrow may return what those point to rather than a pointer into the local.
    opaque: bool,
    /// The pointer went through a raw pointer (`CStr::from_ptr(p)`): a reference made
    /// from it carries no lifetime the borrow checker ties to the local.
    laundered: bool,
}

/// What each local may point into: the locals whose storage its pointers reach.
type PointsInto = FxHashMap<Local, FxHashSet<Target>>;

/// The locals a pointer can be made into (those borrowed in place somewhere in the
/// body), each with its slot in a state's `dead`: only their storage is followed.
struct Borrowed {
    slot: Vec<Option<u32>>,
    count: usize,
}

impl Borrowed {
    fn of(mir: &mir::Body<'_>) -> Borrowed {
        let mut slot = vec![None; mir.local_decls.len()];
        let mut count = 0usize;
        for stmt in mir.basic_blocks.iter().flat_map(|b| &b.statements) {
            if let StatementKind::Assign(assign) = &stmt.kind {
                if let Rvalue::Ref(_, _, place) | Rvalue::RawPtr(_, place) = &assign.1 {
                    let at = &mut slot[place.local.as_usize()];
                    if at.is_none() && !place.projection.contains(&mir::PlaceElem::Deref) {
                        *at = Some(count as u32);
                        count += 1;
                    }
                }
            }
        }
        Borrowed { slot, count }
    }

    fn slot(&self, l: Local) -> Option<usize> {
        self.slot
            .get(l.as_usize())
            .copied()
            .flatten()
            .map(|k| k as usize)
    }
}

/// The state before a statement: what each local may point into, and the borrowed
/// locals whose storage is gone on some path here (with where it went), by slot.
#[derive(Clone, Default, PartialEq)]
struct State {
    points: PointsInto,
    dead: Vec<Option<rustc_span::Span>>,
}

impl State {
    fn new(borrowed: &Borrowed) -> State {
        State {
            points: PointsInto::default(),
            dead: vec![None; borrowed.count],
        }
    }

    /// Adds what `other` holds; whether anything was new.
    fn join(&mut self, other: &State) -> bool {
        let mut changed = false;
        for (l, set) in &other.points {
            let mine = self.points.entry(*l).or_default();
            for t in set {
                changed |= mine.insert(*t);
            }
        }
        for (mine, theirs) in self.dead.iter_mut().zip(&other.dead) {
            if mine.is_none() && theirs.is_some() {
                *mine = *theirs;
                changed = true;
            }
        }
        changed
    }

    fn of(&self, l: Local) -> FxHashSet<Target> {
        self.points.get(&l).cloned().unwrap_or_default()
    }

    /// The targets of `l`, borrowed.
    fn targets(&self, l: Local) -> impl Iterator<Item = &Target> {
        self.points.get(&l).into_iter().flatten()
    }

    fn gone(&self, borrowed: &Borrowed, l: Local) -> Option<rustc_span::Span> {
        self.dead[borrowed.slot(l)?]
    }

    fn set_gone(&mut self, borrowed: &Borrowed, l: Local, at: Option<rustc_span::Span>) {
        if let Some(k) = borrowed.slot(l) {
            self.dead[k] = at;
        }
    }
}

/// The dangling pointers of function `def`.
pub(crate) fn dangling_pointers(
    tcx: TyCtxt<'_>,
    files: &Files,
    def: LocalDefId,
) -> Vec<DanglingPointer> {
    let mir = tcx.optimized_mir(def.to_def_id());
    // Only functions that make raw pointers from borrows can hold one past its target.
    let makes_raw = mir.basic_blocks.iter().flat_map(|b| &b.statements).any(|s| {
        matches!(&s.kind, StatementKind::Assign(a) if match &a.1 {
            Rvalue::RawPtr(..) => true,
            Rvalue::Cast(mir::CastKind::PtrToPtr | mir::CastKind::PointerCoercion(..), _, to) => {
                to.is_raw_ptr()
            }
            _ => false,
        })
    }) || mir.basic_blocks.iter().any(|b| {
        matches!(&b.terminator().kind, TerminatorKind::Call { destination, .. }
            if holds_raw_pointer(tcx, destination.ty(mir, tcx).ty))
    });
    if !makes_raw {
        return Vec::new();
    }
    let env = ty::TypingEnv::post_analysis(tcx, def.to_def_id());
    let n = mir.basic_blocks.len();
    // Blocks are visited in reverse postorder, the earliest pending first, so that a
    // block's predecessors outside loops are done before it.
    let mut order = vec![usize::MAX; n];
    for (k, &bb) in mir.basic_blocks.reverse_postorder().iter().enumerate() {
        order[bb.as_usize()] = k;
    }
    let mut entry: Vec<Option<State>> = vec![None; n];
    let borrowed = Borrowed::of(mir);
    entry[0] = Some(State::new(&borrowed));
    let mut work: std::collections::BTreeSet<(usize, BasicBlock)> =
        std::iter::once((order[0], BasicBlock::from_usize(0))).collect();
    let mut found: Vec<(rustc_span::Span, Local, rustc_span::Span, Use)> = Vec::new();
    let mut rounds = 0usize;
    while let Some((_, bb)) = work.pop_first() {
        rounds += 1;
        // A body this large is left alone rather than followed without end.
        if rounds > 20 * n + 100 {
            return Vec::new();
        }
        let Some(mut state) = entry[bb.as_usize()].clone() else {
            continue;
        };
        let data = &mir.basic_blocks[bb];
        if data.is_cleanup {
            continue;
        }
        for stmt in &data.statements {
            step(tcx, env, mir, &borrowed, stmt, &mut state, &mut found);
        }
        terminator(tcx, mir, &borrowed, data.terminator(), &state, &mut found);
        if let TerminatorKind::Call {
            func,
            destination,
            args,
            ..
        } = &data.terminator().kind
        {
            // What a call returns may point into what it was given, when its type can
            // hold a pointer.
            let dest_ty = destination.ty(mir, tcx).ty;
            if holds_pointer(tcx, dest_ty) && destination.projection.is_empty() {
                // From the arguments the result's lifetimes tie it to (all of them for
                // a raw pointer result, the raw pointers for a lifetime no argument has),
                // not from a closure (what it captures by reference is not what the
                // call returns), and not from a borrow of a place that holds pointers
                // itself (`bucket.as_ref()`, `iter.next()` reach what those point to).
                let linked = linked_args(tcx, mir, func, args);
                let raw_result = dest_ty.is_raw_ptr();
                let mut set = FxHashSet::default();
                for (a, (linked, laundering)) in args.iter().zip(linked) {
                    if !linked || is_closure(a.node.ty(mir, tcx)) {
                        continue;
                    }
                    set.extend(
                        operand_points(&state, &a.node)
                            .into_iter()
                            .filter(|t| !t.opaque)
                            .map(|t| Target {
                                laundered: t.laundered || laundering || raw_result,
                                ..t
                            }),
                    );
                }
                state.points.insert(destination.local, set);
            } else if destination.projection.is_empty() {
                state.points.remove(&destination.local);
            }
        }
        for succ in data.terminator().successors() {
            if mir.basic_blocks[succ].is_cleanup {
                continue;
            }
            let slot = &mut entry[succ.as_usize()];
            let changed = match slot {
                None => {
                    *slot = Some(state.clone());
                    true
                }
                Some(s) => s.join(&state),
            };
            if changed {
                work.insert((order[succ.as_usize()], succ));
            }
        }
    }
    // One finding per variable gone, at its first use after.
    found.sort_by_key(|(at, ..)| (at.lo(), at.hi()));
    let mut seen: FxHashSet<(Local, rustc_span::Span)> = FxHashSet::default();
    found.retain(|(_, target, gone, _)| seen.insert((*target, *gone)));
    // And one per use: a call given two dangling pointers is one finding.
    let mut used: FxHashSet<rustc_span::Span> = FxHashSet::default();
    found.retain(|(at, ..)| used.insert(*at));
    found
        .into_iter()
        .filter_map(|(at, target, gone, how)| {
            let decl = &mir.local_decls[target];
            let name = local_name(mir, target);
            Some(DanglingPointer {
                at: files.span(at)?,
                target: name,
                target_span: files.span(decl.source_info.span)?,
                gone: files.span(gone)?,
                returned: matches!(how, Use::Returned),
                callee: match how {
                    Use::Passed(name) => Some(name),
                    _ => None,
                },
            })
        })
        .collect()
}

/// How a dangling pointer is used.
enum Use {
    Deref,
    Passed(String),
    Returned,
}

fn step<'tcx>(
    tcx: TyCtxt<'tcx>,
    env: ty::TypingEnv<'tcx>,
    mir: &mir::Body<'tcx>,
    borrowed: &Borrowed,
    stmt: &mir::Statement<'tcx>,
    state: &mut State,
    found: &mut Vec<(rustc_span::Span, Local, rustc_span::Span, Use)>,
) {
    match &stmt.kind {
        StatementKind::StorageLive(l) => {
            state.set_gone(borrowed, *l, None);
        }
        StatementKind::StorageDead(l) => {
            state.set_gone(borrowed, *l, Some(stmt.source_info.span));
        }
        StatementKind::Assign(assign) => {
            let (dst, rvalue) = &**assign;
            // A dereference of a dangling pointer, read or written.
            for place in rvalue_places(rvalue).chain(std::iter::once(*dst)) {
                check_deref(borrowed, state, &place, stmt.source_info.span, found);
            }
            let set: FxHashSet<Target> = match rvalue {
                // `&x`, `&raw x`, `&x.f`: the storage of `x`; `&(*p).f`: where `p` points.
                Rvalue::Ref(_, _, place) | Rvalue::RawPtr(_, place) => {
                    if place.projection.iter().any(|p| p == mir::PlaceElem::Deref) {
                        state.of(place.local)
                    } else if own_storage(tcx, env, mir.local_decls[place.local].ty) {
                        let borrowed = place.ty(mir, tcx).ty;
                        std::iter::once(Target {
                            local: place.local,
                            opaque: holds_any_pointer(tcx, borrowed),
                            laundered: false,
                        })
                        .collect()
                    } else {
                        FxHashSet::default()
                    }
                }
                Rvalue::Use(op, _) | Rvalue::Cast(_, op, _) => operand_points(state, op),
                Rvalue::CopyForDeref(place) => state.of(place.local),
                Rvalue::Aggregate(_, ops) => ops
                    .iter()
                    .flat_map(|op| operand_points(state, op))
                    .collect(),
                _ => FxHashSet::default(),
            };
            // Into a raw pointer: what is made from it later has no lifetime of the
            // local's.
            let raw = dst.ty(mir, tcx).ty.is_raw_ptr();
            let set: FxHashSet<Target> = set
                .into_iter()
                .map(|t| Target {
                    laundered: t.laundered || raw,
                    ..t
                })
                .collect();
            if dst.projection.is_empty() {
                // A new value: what it held before is gone.
                if set.is_empty() {
                    state.points.remove(&dst.local);
                } else {
                    state.points.insert(dst.local, set);
                }
            } else if !set.is_empty() {
                // Stored into a field of `dst.local` (or where it points): the struct
                // holds the pointer too.
                state.points.entry(dst.local).or_default().extend(set);
            }
        }
        _ => {}
    }
}

fn terminator<'tcx>(
    tcx: TyCtxt<'tcx>,
    mir: &mir::Body<'tcx>,
    borrowed: &Borrowed,
    term: &mir::Terminator<'tcx>,
    state: &State,
    found: &mut Vec<(rustc_span::Span, Local, rustc_span::Span, Use)>,
) {
    let span = term.source_info.span;
    match &term.kind {
        TerminatorKind::Call {
            func,
            args,
            fn_span,
            ..
        } => {
            for a in args {
                if let Operand::Copy(p) | Operand::Move(p) = &a.node {
                    check_deref(borrowed, state, p, *fn_span, found);
                }
                // A pointer handed to a call after what it points into is gone: a raw
                // one, or a reference made from one.
                let ty = a.node.ty(mir, tcx);
                let raw = holds_raw_pointer(tcx, ty) || points_to_raw(tcx, ty);
                if !raw && !holds_pointer(tcx, ty) {
                    continue;
                }
                // What the pointer reaches, and what a struct it points to holds
                // (`&opts` whose field points into a temporary).
                let direct = operand_points(state, &a.node);
                let held = direct.iter().flat_map(|t| state.targets(t.local).copied());
                let reached: FxHashSet<Local> = direct
                    .iter()
                    .copied()
                    .chain(held)
                    .filter(|t| raw || t.laundered)
                    .map(|t| t.local)
                    .collect();
                for target in reached {
                    if let Some(gone) = state.gone(borrowed, target) {
                        let name = func
                            .const_fn_def()
                            .map(|(d, _)| without_generics(&tcx.def_path_str(d)))
                            .unwrap_or_default();
                        found.push((*fn_span, target, gone, Use::Passed(name)));
                    }
                }
            }
        }
        TerminatorKind::Return => {
            // Every local is gone once the function returns; a raw pointer into one
            // (not the return place, not a parameter's pointee) is dangling.
            let ty = mir.local_decls[mir::RETURN_PLACE].ty;
            if !holds_raw_pointer(tcx, ty) {
                return;
            }
            // Shown where the returned value is made.
            let made = mir
                .basic_blocks
                .iter()
                .flat_map(|b| &b.statements)
                .filter_map(|s| match &s.kind {
                    StatementKind::Assign(a) if a.0.local == mir::RETURN_PLACE => {
                        Some(s.source_info.span)
                    }
                    _ => None,
                })
                .next_back()
                .unwrap_or(span);
            for target in state.of(mir::RETURN_PLACE) {
                if target.local != mir::RETURN_PLACE {
                    found.push((made, target.local, span, Use::Returned));
                }
            }
        }
        _ => {}
    }
}

/// A dereference of `place` through a pointer that points into a dead local.
fn check_deref(
    borrowed: &Borrowed,
    state: &State,
    place: &Place<'_>,
    span: rustc_span::Span,
    found: &mut Vec<(rustc_span::Span, Local, rustc_span::Span, Use)>,
) {
    if place.projection.first() != Some(&mir::PlaceElem::Deref) {
        return;
    }
    for target in state.targets(place.local) {
        if let Some(gone) = state.gone(borrowed, target.local) {
            found.push((span, target.local, gone, Use::Deref));
        }
    }
}

/// The places an rvalue reads.
fn rvalue_places<'a, 'tcx>(rvalue: &'a Rvalue<'tcx>) -> impl Iterator<Item = Place<'tcx>> + 'a {
    let ops: Vec<Place<'tcx>> = match rvalue {
        Rvalue::Use(op, _)
        | Rvalue::Cast(_, op, _)
        | Rvalue::UnaryOp(_, op)
        | Rvalue::Repeat(op, _) => op.place().into_iter().collect(),
        Rvalue::BinaryOp(_, pair) => [&pair.0, &pair.1]
            .into_iter()
            .filter_map(|o| o.place())
            .collect(),
        Rvalue::Aggregate(_, ops) => ops.iter().filter_map(|o| o.place()).collect(),
        Rvalue::CopyForDeref(p) | Rvalue::Discriminant(p) => vec![*p],
        _ => Vec::new(),
    };
    ops.into_iter()
}

/// Which arguments of a call its result may point into, and whether through a raw
/// pointer: those whose lifetimes the result's type has (by the callee's signature);
/// all of them when the result has no lifetime (a raw pointer); the raw pointers when
/// its lifetime is none of theirs (`CStr::from_ptr`).
fn linked_args<'tcx>(
    tcx: TyCtxt<'tcx>,
    mir: &mir::Body<'tcx>,
    func: &Operand<'tcx>,
    args: &[rustc_span::Spanned<Operand<'tcx>>],
) -> Vec<(bool, bool)> {
    let all = vec![(true, false); args.len()];
    let Some((def, _)) = func.const_fn_def() else {
        return all;
    };
    let sig = tcx.fn_sig(def).skip_binder().skip_binder();
    let regions = |ty: Ty<'tcx>| -> Vec<ty::Region<'tcx>> {
        ty.walk()
            .filter_map(|a| match a.kind() {
                ty::GenericArgKind::Lifetime(r) if !r.is_static() => Some(r),
                _ => None,
            })
            .collect()
    };
    let out = regions(sig.output());
    if out.is_empty() || sig.inputs().len() != args.len() {
        return all;
    }
    let tied: Vec<bool> = sig
        .inputs()
        .iter()
        .map(|input| regions(*input).iter().any(|r| out.contains(r)))
        .collect();
    if tied.iter().any(|t| *t) {
        return tied.into_iter().map(|t| (t, false)).collect();
    }
    args.iter()
        .map(|a| {
            let raw = a.node.ty(mir, tcx).is_raw_ptr();
            (raw, raw)
        })
        .collect()
}

/// What an operand may point into.
fn operand_points(state: &State, op: &Operand<'_>) -> FxHashSet<Target> {
    match op {
        // `copy (*p).f` reads what `p` points to, not a pointer into it.
        Operand::Copy(p) | Operand::Move(p)
            if p.projection.iter().any(|e| e == mir::PlaceElem::Deref) =>
        {
            FxHashSet::default()
        }
        Operand::Copy(p) | Operand::Move(p) => state.of(p.local),
        _ => FxHashSet::default(),
    }
}

/// Whether a value of `ty` can hold a pointer into another variable: a raw pointer, a
/// reference, or a type whose arguments hold one (`Option<&T>`, `Foo<'a>`).
fn holds_pointer<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    points_or_borrows(ty) || holds_raw_pointer(tcx, ty)
}

/// Whether `ty` or one of its type arguments is a pointer or a reference, or it has a
/// lifetime other than `'static` (`Foo<'a>`).
fn points_or_borrows(ty: Ty<'_>) -> bool {
    ty.walk().any(|arg| match arg.kind() {
        ty::GenericArgKind::Type(t) => t.is_any_ptr(),
        ty::GenericArgKind::Lifetime(r) => !r.is_static(),
        _ => false,
    })
}

/// Whether `ty` is or holds a raw pointer (in its arguments, or a field of a struct of
/// the crate or a `#[repr(C)]` struct).
fn holds_raw_pointer<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    if ty
        .walk()
        .any(|arg| matches!(arg.kind(), ty::GenericArgKind::Type(t) if t.is_raw_ptr()))
    {
        return true;
    }
    match ty.kind() {
        ty::Adt(adt, args) if adt.is_struct() => adt
            .all_fields()
            .any(|f| f.ty(tcx, args).skip_normalization().is_raw_ptr()),
        _ => false,
    }
}

/// A closure, or a reference to one.
fn is_closure(ty: Ty<'_>) -> bool {
    let ty = ty.builtin_deref(true).unwrap_or(ty);
    matches!(ty.kind(), ty::Closure(..) | ty::CoroutineClosure(..))
}

/// Whether a variable of type `ty` holds a pointer to memory elsewhere: a raw pointer,
/// a reference, `NonNull`, a type that borrows (`IterMut<'a, T>`), or one with such a
/// field (a few levels deep).
fn holds_any_pointer<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    holds_any_pointer_at(tcx, ty, 0)
}

fn holds_any_pointer_at<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>, depth: u32) -> bool {
    if points_or_borrows(ty) || crate::lower::types::adt_is(tcx, ty, "core", "NonNull") {
        return true;
    }
    if depth >= 3 {
        return false;
    }
    match ty.kind() {
        ty::Adt(adt, args) => adt
            .all_fields()
            .any(|f| holds_any_pointer_at(tcx, f.ty(tcx, args).skip_normalization(), depth + 1)),
        ty::Tuple(parts) => parts
            .iter()
            .any(|t| holds_any_pointer_at(tcx, t, depth + 1)),
        ty::Array(elem, _) => holds_any_pointer_at(tcx, *elem, depth + 1),
        _ => false,
    }
}

/// A reference or raw pointer to a value that holds a raw pointer (`&opts` of a struct
/// of pointers handed to C).
fn points_to_raw<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    ty.builtin_deref(true)
        .is_some_and(|inner| holds_raw_pointer(tcx, inner))
}

/// Whether a pointer made from a borrow of a local of type `ty` points into the local's
/// own storage, which ends with it: plain data (scalars, raw pointers, arrays, structs
/// of them, `Option`, `MaybeUninit`). A borrow of an owner (a `Vec`, a `CString`, a struct that
/// holds one, `ManuallyDrop` of one) reaches its heap memory through its methods, which
/// outlives the variable when it is given up; the IR's own lints follow that memory.
fn own_storage<'tcx>(tcx: TyCtxt<'tcx>, env: ty::TypingEnv<'tcx>, ty: Ty<'tcx>) -> bool {
    if ty.is_unit() || ty.is_ref() || matches!(ty.kind(), ty::FnDef(..) | ty::Closure(..)) {
        return false;
    }
    if ty.needs_drop(tcx, env) {
        return false;
    }
    ty.walk().all(|arg| match arg.kind() {
        ty::GenericArgKind::Type(t) => match t.kind() {
            ty::Adt(adt, _) => {
                let krate = tcx.crate_name(adt.did().krate);
                !matches!(krate.as_str(), "core" | "alloc" | "std")
                    || matches!(
                        tcx.item_name(adt.did()).as_str(),
                        "Option"
                            | "Result"
                            | "MaybeUninit"
                            | "PhantomData"
                            | "Cell"
                            | "UnsafeCell"
                            | "Wrapping"
                    )
            }
            ty::Ref(..) | ty::Dynamic(..) | ty::Foreign(..) => false,
            _ => true,
        },
        _ => true,
    })
}

/// A local's name as the user wrote it, if it has one.
fn local_name(mir: &mir::Body<'_>, local: Local) -> Option<String> {
    if local == mir::Local::from_usize(1) && mir.arg_count > 0 {
        if let Some(info) = mir.var_debug_info.iter().find(|i| {
            matches!(i.value, mir::VarDebugInfoContents::Place(p) if p.local == local && p.projection.is_empty())
        }) {
            return Some(info.name.to_string());
        }
    }
    mir.var_debug_info.iter().find_map(|i| match i.value {
        mir::VarDebugInfoContents::Place(p) if p.local == local && p.projection.is_empty() => {
            Some(i.name.to_string())
        }
        _ => None,
    })
}

/// A path as a user reads it: `std::option::Option::<T>::unwrap_or` without `::<T>`.
fn without_generics(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut depth = 0usize;
    for c in path.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.replace("::::", "::")
}
