//! The crate's structs as the compiler lays them out: each field's type, size and
//! offset (in rustc's field order for `repr(Rust)`), the struct's size and
//! `#[repr(align)]`, a derived `Clone`, and whether its `Drop` hands its raw pointers
//! (or the whole value) to code outside Rust.

use rustc_data_structures::fx::FxHashSet;
use rustc_hir::def::DefKind;
use rustc_hir::def_id::{DefId, LocalDefId};
use rustc_middle::mir::{self, Operand, Rvalue, StatementKind, TerminatorKind};
use rustc_middle::ty::{self, Ty, TyCtxt, TypingEnv};

use tensor_lint_analyzer::index::{FieldInfo, StructItem};

use crate::files::Files;
use crate::lower::types;

/// Every struct the crate defines, in definition order.
pub(crate) fn crate_structs(tcx: TyCtxt<'_>, files: &Files) -> Vec<StructItem> {
    let clone = tcx.lang_items().clone_trait();
    let mut out = Vec::new();
    for def in tcx.hir_crate_items(()).definitions() {
        if tcx.def_kind(def) != DefKind::Struct {
            continue;
        }
        if let Some(item) = struct_item(tcx, files, def, clone) {
            out.push(item);
        }
    }
    out
}

fn struct_item(
    tcx: TyCtxt<'_>,
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
        raw_owner: drop_hands_raw_memory_out(tcx, adt.did(), ty),
        size: layout.as_ref().map(|l| l.size.bytes()),
        span: files.span(tcx.def_ident_span(def).unwrap_or_else(|| tcx.def_span(def)))?,
    })
}

/// The span of the `#[derive]` that implements trait `trait_id` for struct `adt`.
fn derived_impl(tcx: TyCtxt<'_>, trait_id: DefId, adt: DefId) -> Option<rustc_span::Span> {
    tcx.all_impls(trait_id).find_map(|imp| {
        let self_ty = tcx.type_of(imp).instantiate_identity().skip_normalization();
        let same = self_ty.ty_adt_def().is_some_and(|a| a.did() == adt);
        (imp.is_local() && same && tcx.is_automatically_derived(imp))
            .then(|| tcx.def_span(imp).source_callsite())
    })
}

/// Whether the struct's own `Drop` gives `self`, or one of its raw pointer fields, to
/// code outside Rust (a function pointer or a foreign function), which releases what
/// it points to.
fn drop_hands_raw_memory_out<'tcx>(tcx: TyCtxt<'tcx>, adt: DefId, ty: Ty<'tcx>) -> bool {
    let Some(destructor) = tcx.adt_destructor(adt) else {
        return false;
    };
    let Some(local) = destructor.did.as_local() else {
        return false;
    };
    let has_raw_field = match ty.kind() {
        ty::Adt(def, args) => def
            .all_fields()
            .any(|f| f.ty(tcx, args).skip_normalization().is_raw_ptr()),
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
            Some((callee, _)) => tcx.is_foreign_item(callee),
        };
        let self_given = args.iter().any(|a| match &a.node {
            Operand::Copy(p) | Operand::Move(p) => from_self.contains(&p.local),
            _ => false,
        });
        outside && self_given
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
