//! The crate's structs as the compiler lays them out: each field's type, size and
//! offset (in rustc's field order for `repr(Rust)`), the struct's size and
//! `#[repr(align)]`, a derived `Clone`, and whether its `Drop` hands its raw pointers
//! (or the whole value) to code outside Rust.

use rustc_data_structures::fx::FxHashSet;
use rustc_hir::def::DefKind;
use rustc_hir::def_id::{DefId, LocalDefId};
use rustc_middle::mir::{self, Operand, Rvalue, StatementKind, TerminatorKind};
use rustc_middle::ty::{self, Ty, TyCtxt, TypingEnv};

use tensor_lint_analyzer::ir::structs::{FieldInfo, StructItem};
use tensor_lint_analyzer::models::Role;

use crate::files::Files;
use crate::lower::types;
use crate::models::Models;

/// Every struct the crate defines, in definition order.
pub(crate) fn crate_structs(tcx: TyCtxt<'_>, models: &Models, files: &Files) -> Vec<StructItem> {
    let clone = tcx.lang_items().clone_trait();
    let mut out = Vec::new();
    for def in tcx.hir_crate_items(()).definitions() {
        if tcx.def_kind(def) != DefKind::Struct {
            continue;
        }
        if let Some(item) = struct_item(tcx, models, files, def, clone) {
            out.push(item);
        }
    }
    out
}

fn struct_item(
    tcx: TyCtxt<'_>,
    models: &Models,
    files: &Files,
    def: LocalDefId,
    clone: Option<DefId>,
) -> Option<StructItem> {
    let adt = tcx.adt_def(def);
    let ty = tcx.type_of(def).instantiate_identity().skip_normalization();
    let env = TypingEnv::post_analysis(tcx, def.to_def_id());
    let layout = tcx.layout_of(env.as_query_input(ty)).ok();
    let ty::Adt(_, args) = ty.kind() else {
        return None;
    };
    let fields = adt
        .non_enum_variant()
        .fields
        .iter_enumerated()
        .map(|(i, f)| {
            let field_ty = f.ty(tcx, args).skip_normalization();
            let elem = types::element_of(tcx, field_ty);
            FieldInfo {
                name: f.name.to_string(),
                ty: types::class_of(tcx, field_ty),
                ty_name: match field_ty.kind() {
                    ty::Array(elem, _) => format!("[{}]", types::short_name(tcx, *elem)),
                    _ => types::short_name(tcx, field_ty),
                },
                elem_name: elem.map(|e| types::short_name(tcx, e)),
                bytes: types::size_of(tcx, env, field_ty),
                elem_bytes: elem.and_then(|e| types::size_of(tcx, env, e)),
                borrows_storage: field_ty.walk().any(|a| a.as_region().is_some()),
                fn_pointer: is_fn_pointer(tcx, field_ty),
                offset: layout
                    .as_ref()
                    .filter(|l| i.as_usize() < l.fields.count())
                    .map(|l| l.fields.offset(i.as_usize()).bytes()),
            }
        })
        .collect();
    let derives_clone = clone.and_then(|clone| derived_impl(tcx, clone, def.to_def_id()));
    let raw_owner = drop_hands_raw_memory_out(tcx, models, adt.did(), ty);
    let clone_copies_pointer = clone
        .filter(|_| raw_owner)
        .and_then(|clone| clone_copies_pointer(tcx, clone, def.to_def_id()));
    Some(StructItem {
        name: tcx.item_name(def.to_def_id()).to_string(),
        module: tcx
            .def_path_str(tcx.parent(def.to_def_id()))
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        fields,
        repr_align: adt.repr().align.map(|a| a.bytes()),
        derives_clone: derives_clone.and_then(|span| files.span(span)),
        raw_owner,
        clone_copies_pointer: clone_copies_pointer.and_then(|span| files.span(span)),
        released_not_reset: crate::released_fields::released_not_reset(
            tcx,
            models,
            files,
            def.to_def_id(),
        ),
        size: layout.as_ref().map(|l| l.size.bytes()),
        span: files.span(tcx.def_ident_span(def).unwrap_or_else(|| tcx.def_span(def)))?,
    })
}

/// The impls of trait `trait_id` for struct `adt` in this crate.
fn local_impls(tcx: TyCtxt<'_>, trait_id: DefId, adt: DefId) -> impl Iterator<Item = DefId> + '_ {
    tcx.all_impls(trait_id).filter(move |imp| {
        let self_ty = tcx
            .type_of(*imp)
            .instantiate_identity()
            .skip_normalization();
        imp.is_local() && self_ty.ty_adt_def().is_some_and(|a| a.did() == adt)
    })
}

/// The span of the `#[derive]` that implements trait `trait_id` for struct `adt`.
fn derived_impl(tcx: TyCtxt<'_>, trait_id: DefId, adt: DefId) -> Option<rustc_span::Span> {
    local_impls(tcx, trait_id, adt)
        .find(|imp| tcx.is_automatically_derived(*imp))
        .map(|imp| tcx.def_span(imp).source_callsite())
}

/// Whether the struct's own `Drop` gives `self`, or one of its raw pointer fields, to
/// code outside Rust (a function pointer or a foreign function), which releases what
/// it points to.
fn drop_hands_raw_memory_out<'tcx>(
    tcx: TyCtxt<'tcx>,
    models: &Models,
    adt: DefId,
    ty: Ty<'tcx>,
) -> bool {
    let Some(destructor) = tcx.adt_destructor(adt) else {
        return false;
    };
    let Some(local) = destructor.did.as_local() else {
        return false;
    };
    let has_raw_field = match ty.kind() {
        ty::Adt(def, args) => def
            .all_fields()
            .any(|f| types::is_pointer(tcx, f.ty(tcx, args).skip_normalization())),
        _ => false,
    };
    if !has_raw_field || !tcx.is_mir_available(local.to_def_id()) {
        return false;
    }
    let mir = tcx.optimized_mir(local.to_def_id());
    // The locals that hold `self` or something read from it.
    let mut from_self: FxHashSet<mir::Local> = FxHashSet::default();
    from_self.insert(mir::Local::from_usize(1));
    loop {
        let before = from_self.len();
        for block in mir.basic_blocks.iter() {
            // What a call returns from `self`'s pointer (`self.ptr.as_ptr()`).
            if let Some(TerminatorKind::Call {
                args, destination, ..
            }) = block.terminator.as_ref().map(|t| &t.kind)
            {
                let given = args.iter().any(|a| match &a.node {
                    Operand::Copy(p) | Operand::Move(p) => from_self.contains(&p.local),
                    _ => false,
                });
                if given {
                    from_self.insert(destination.local);
                }
            }
            for stmt in &block.statements {
                let StatementKind::Assign(assign) = &stmt.kind else {
                    continue;
                };
                let (dst, rvalue) = &**assign;
                let source = match rvalue {
                    Rvalue::Use(op, _) | Rvalue::Cast(_, op, _) => op.place(),
                    Rvalue::Ref(_, _, place)
                    | Rvalue::RawPtr(_, place)
                    | Rvalue::CopyForDeref(place) => Some(*place),
                    _ => None,
                };
                if source.is_some_and(|p| from_self.contains(&p.local)) {
                    from_self.insert(dst.local);
                }
            }
        }
        if from_self.len() == before {
            break;
        }
    }
    mir.basic_blocks.iter().any(|block| {
        let Some(term) = &block.terminator else {
            return false;
        };
        let TerminatorKind::Call { func, args, .. } = &term.kind else {
            return false;
        };
        let outside = match func.const_fn_def() {
            None => true,
            Some((callee, _)) => releases_what_it_is_given(tcx, models, callee),
        };
        let self_given = args.iter().any(|a| match &a.node {
            Operand::Copy(p) | Operand::Move(p) => from_self.contains(&p.local),
            _ => false,
        });
        outside && self_given
    })
}

/// A call of a function the compiler resolved.
pub(crate) struct DirectCall<'a, 'tcx> {
    pub block: mir::BasicBlock,
    /// The call is on an unwinding path.
    pub cleanup: bool,
    pub callee: DefId,
    pub generics: ty::GenericArgsRef<'tcx>,
    pub args: &'a [rustc_span::Spanned<Operand<'tcx>>],
    /// The call with its arguments.
    pub span: rustc_span::Span,
}

/// Whether `f` is a function of the crate with MIR in an inherent impl of `adt` (a
/// method of the type that its `Drop` or another method calls).
pub(crate) fn own_method_of(tcx: TyCtxt<'_>, adt: DefId, f: DefId) -> bool {
    f.is_local()
        && tcx.is_mir_available(f)
        && tcx
            .opt_parent(f)
            .is_some_and(|imp| tcx.inherent_impls(adt).contains(&imp))
}

/// The struct of the crate a method is of, with whether it takes `&mut self`.
pub(crate) fn struct_of_method(
    tcx: TyCtxt<'_>,
    method: rustc_hir::def_id::LocalDefId,
) -> Option<(DefId, bool)> {
    if tcx.def_kind(method) != rustc_hir::def::DefKind::AssocFn
        || !tcx.associated_item(method.to_def_id()).is_method()
    {
        return None;
    }
    let imp = tcx.impl_of_assoc(method.to_def_id())?;
    let ty::Adt(adt, _) = tcx
        .type_of(imp)
        .instantiate_identity()
        .skip_norm_wip()
        .kind()
    else {
        return None;
    };
    if !adt.is_struct() || !adt.did().is_local() {
        return None;
    }
    let sig = tcx.fn_sig(method).instantiate_identity().skip_binder();
    let by_mut_ref = matches!(
        sig.inputs().first().map(|t| t.kind()),
        Some(ty::Ref(_, _, ty::Mutability::Mut))
    );
    Some((adt.did(), by_mut_ref))
}

/// The bodies of the crate's functions, methods and closures that have MIR.
pub(crate) fn crate_bodies(tcx: TyCtxt<'_>) -> Vec<rustc_hir::def_id::LocalDefId> {
    tcx.hir_body_owners()
        .filter(|&def| {
            matches!(
                tcx.def_kind(def),
                rustc_hir::def::DefKind::Fn
                    | rustc_hir::def::DefKind::AssocFn
                    | rustc_hir::def::DefKind::Closure
            )
        })
        .filter(|&def| tcx.is_mir_available(def.to_def_id()))
        .collect()
}

/// The calls of a body to functions the compiler resolved, in block order.
pub(crate) fn direct_calls<'a, 'tcx>(
    mir: &'a mir::Body<'tcx>,
) -> impl Iterator<Item = DirectCall<'a, 'tcx>> + 'a {
    mir.basic_blocks
        .iter_enumerated()
        .filter_map(|(block, data)| {
            let TerminatorKind::Call {
                func,
                args,
                fn_span,
                ..
            } = &data.terminator().kind
            else {
                return None;
            };
            let (callee, generics) = func.const_fn_def()?;
            Some(DirectCall {
                block,
                cleanup: data.is_cleanup,
                callee,
                generics,
                args,
                span: *fn_span,
            })
        })
}

/// The blocks of `mir` reached from `start` on paths that do not unwind, entering no
/// block `stop` says to stop at (`start` itself included).
pub(crate) fn blocks_reached(
    mir: &mir::Body<'_>,
    start: mir::BasicBlock,
    stop: impl Fn(mir::BasicBlock, &mir::BasicBlockData<'_>) -> bool,
) -> rustc_data_structures::fx::FxHashSet<mir::BasicBlock> {
    let mut seen = rustc_data_structures::fx::FxHashSet::default();
    let mut work = vec![start];
    while let Some(bb) = work.pop() {
        let data = &mir.basic_blocks[bb];
        if data.is_cleanup || stop(bb, data) || !seen.insert(bb) {
            continue;
        }
        work.extend(data.terminator().successors());
    }
    seen
}

/// A function that may release what a pointer it is given points to: code outside
/// Rust, or one that frees raw memory.
pub(crate) fn releases_what_it_is_given(tcx: TyCtxt<'_>, models: &Models, callee: DefId) -> bool {
    tcx.is_foreign_item(callee) || frees_raw_memory(tcx, models, callee)
}

/// A function that frees the memory a raw pointer reaches: one of the allocator protocol
/// (`std::alloc::dealloc`, `Allocator::deallocate`, see `models::allocator_release`),
/// and the `from_raw` of an owner (`Box`, `Vec`, `String`, `CString`), whose drop frees
/// it.
pub(crate) fn frees_raw_memory(tcx: TyCtxt<'_>, models: &Models, callee: DefId) -> bool {
    if crate::models::allocator_release(tcx, callee).is_some() {
        return true;
    }
    matches!(
        models.role(tcx, callee),
        Some(Role::BoxFromRaw | Role::OwnerFromRaw)
    )
}

/// Where a `Clone` written by hand for struct `adt` builds the clone with a raw pointer
/// field copied from the value cloned (`Self { ptr: self.ptr, .. }`), when the clone hands
/// none of those pointers to a call first (which may take a reference count or copy
/// what the pointer reaches).
fn clone_copies_pointer<'tcx>(
    tcx: TyCtxt<'tcx>,
    clone: DefId,
    adt: DefId,
) -> Option<rustc_span::Span> {
    let imp = local_impls(tcx, clone, adt).find(|imp| !tcx.is_automatically_derived(*imp))?;
    let method = tcx
        .associated_item_def_ids(imp)
        .iter()
        .copied()
        .find(|m| tcx.item_name(*m).as_str() == "clone")?;
    if !tcx.is_mir_available(method) {
        return None;
    }
    let mir = tcx.optimized_mir(method);
    // The field of `*self` each local holds (`_2 = copy ((*_1).0)`), and every local
    // holding something read from `self`.
    let self_local = mir::Local::from_usize(1);
    let field_of_self = |place: &mir::Place<'tcx>| match place.projection.as_slice() {
        [mir::PlaceElem::Deref, mir::PlaceElem::Field(f, ty)] if place.local == self_local => {
            types::is_pointer(tcx, *ty).then_some(f.as_usize())
        }
        _ => None,
    };
    let mut held: rustc_data_structures::fx::FxHashMap<mir::Local, usize> = Default::default();
    let mut from_self: FxHashSet<mir::Local> = FxHashSet::default();
    from_self.insert(self_local);
    for block in mir.basic_blocks.iter() {
        for stmt in &block.statements {
            let StatementKind::Assign(assign) = &stmt.kind else {
                continue;
            };
            let (dst, rvalue) = &**assign;
            if let Rvalue::Use(op, _) | Rvalue::Cast(_, op, _) = rvalue {
                if let Some(place) = op.place() {
                    if let Some(f) = field_of_self(&place) {
                        held.insert(dst.local, f);
                    }
                    if from_self.contains(&place.local) {
                        from_self.insert(dst.local);
                    }
                }
            }
        }
    }
    // A pointer of `self` handed to a call: the callee may count a reference.
    let handed = mir.basic_blocks.iter().any(|block| {
        let Some(term) = &block.terminator else {
            return false;
        };
        let TerminatorKind::Call { args, .. } = &term.kind else {
            return false;
        };
        args.iter().any(|a| match &a.node {
            Operand::Copy(p) | Operand::Move(p) => {
                held.contains_key(&p.local)
                    || (p.local != self_local && from_self.contains(&p.local))
            }
            _ => false,
        })
    });
    if handed {
        return None;
    }
    mir.basic_blocks.iter().find_map(|block| {
        block.statements.iter().find_map(|stmt| {
            let StatementKind::Assign(assign) = &stmt.kind else {
                return None;
            };
            let Rvalue::Aggregate(kind, operands) = &assign.1 else {
                return None;
            };
            let mir::AggregateKind::Adt(built, ..) = **kind else {
                return None;
            };
            if built != adt {
                return None;
            }
            let copies = operands.iter_enumerated().any(|(k, op)| {
                let field = match op {
                    Operand::Copy(p) | Operand::Move(p) => field_of_self(p).or_else(|| {
                        p.projection
                            .is_empty()
                            .then(|| held.get(&p.local).copied())
                            .flatten()
                    }),
                    _ => None,
                };
                field == Some(k.as_usize())
            });
            copies.then_some(stmt.source_info.span)
        })
    })
}

/// A function pointer, or an optional one (`Option<unsafe extern "C" fn(..)>`).
pub(crate) fn is_fn_pointer<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    match ty.kind() {
        ty::FnPtr(..) => true,
        ty::Adt(adt, args) if tcx.is_diagnostic_item(rustc_span::sym::Option, adt.did()) => {
            args.types().next().is_some_and(|t| t.is_fn_ptr())
        }
        _ => false,
    }
}
