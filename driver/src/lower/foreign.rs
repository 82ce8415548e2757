//! Foreign functions: what a function an `extern` block declares does with the handles
//! of its C API, from the declarations of the crate that declares it (this crate or a
//! `-sys` crate it uses).
//!
//! The declared types are the compiler's, with every alias expanded: the handle type
//! `cublasLtMatrixLayout_t` (`*mut Opaque`) is seen as the pointer it is, so an
//! out-parameter `*mut cublasLtMatrixLayout_t` is a pointer to a pointer. The pairing
//! itself (which function makes what which other one destroys) is
//! [`tensor_lint_analyzer::models::foreign::roles`].

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_hir::def::DefKind;
use rustc_hir::def_id::{CrateNum, DefId};
use rustc_middle::mir;
use rustc_middle::ty::{self, Ty, TyCtxt};

use tensor_lint_analyzer::ir::{Op, ReleaseKind, ReleasedBy, RootOrigin, ValueId, ValueKind};
use tensor_lint_analyzer::models::foreign::{self, Foreign, ForeignFn, ForeignTy};
use tensor_lint_analyzer::source::Span;

use super::calls::Arg;
use super::{BodyCx, FnLowerer};
use crate::files::Files;

/// What the foreign functions of one crate do with handles.
struct CrateForeign<'tcx> {
    /// By function name.
    roles: BTreeMap<String, Foreign>,
    /// The declared types of the handles its releasing functions release
    /// (`cublasLtMatmulDesc_t`): any other function given one only borrows it.
    handles: FxHashSet<Ty<'tcx>>,
}

/// The foreign functions of each crate that declares one a call reaches, worked out
/// the first time.
#[derive(Default)]
pub(crate) struct ForeignRoles<'tcx> {
    by_crate: RefCell<FxHashMap<CrateNum, Rc<CrateForeign<'tcx>>>>,
}

impl<'tcx> ForeignRoles<'tcx> {
    fn of_crate(
        &self,
        tcx: TyCtxt<'tcx>,
        files: &Files,
        krate: CrateNum,
    ) -> Rc<CrateForeign<'tcx>> {
        Rc::clone(
            self.by_crate
                .borrow_mut()
                .entry(krate)
                .or_insert_with(|| Rc::new(crate_foreign(tcx, files, krate))),
        )
    }

    /// What foreign function `def` does with handles, if anything.
    pub(crate) fn role(&self, tcx: TyCtxt<'tcx>, files: &Files, def: DefId) -> Option<Foreign> {
        let roles = self.of_crate(tcx, files, def.krate);
        roles.roles.get(tcx.item_name(def).as_str()).cloned()
    }

    /// Whether `name` is a releasing function among the foreign functions of `krate`.
    fn releases(&self, tcx: TyCtxt<'tcx>, files: &Files, krate: CrateNum, name: &str) -> bool {
        matches!(
            self.of_crate(tcx, files, krate).roles.get(name),
            Some(Foreign::Release { .. })
        )
    }

    /// Whether foreign function `def` takes a handle of its C API as parameter `i`.
    fn takes_handle(&self, tcx: TyCtxt<'tcx>, files: &Files, def: DefId, i: usize) -> bool {
        let sig = tcx.fn_sig(def).instantiate_identity().skip_binder();
        let Some(ty) = sig.inputs().get(i) else {
            return false;
        };
        self.of_crate(tcx, files, def.krate).handles.contains(ty)
    }
}

/// The foreign functions crate `krate` declares.
fn crate_foreign<'tcx>(tcx: TyCtxt<'tcx>, files: &Files, krate: CrateNum) -> CrateForeign<'tcx> {
    let mut fns = Vec::new();
    let mut sigs = Vec::new();
    let mut structs = Vec::new();
    let mut allocators = Vec::new();
    for module in tcx.foreign_modules(krate).values() {
        for &item in &module.foreign_items {
            if tcx.def_kind(item) != DefKind::Fn {
                continue;
            }
            let sig = tcx.fn_sig(item).instantiate_identity().skip_binder();
            let mut ty_of = |t: Ty<'tcx>| foreign_ty(tcx, t, krate, &mut structs, &mut allocators);
            let params = sig.inputs().iter().map(|t| ty_of(*t)).collect();
            let ret = ty_of(sig.output());
            // Annotations on the crate's own declarations; the macros have checked
            // them, so what cannot be read here is left to them.
            let annotations = item
                .as_local()
                .map(|l| crate::annotations::of(tcx, l, files, &mut Vec::new()))
                .unwrap_or_default();
            fns.push(ForeignFn {
                name: tcx.item_name(item).to_string(),
                params,
                ret,
                annotations,
            });
            sigs.push(sig);
        }
    }
    let roles = foreign::roles(&fns, &[], &allocators, &structs);
    let mut handles = FxHashSet::default();
    for (f, sig) in fns.iter().zip(&sigs) {
        if let Some(Foreign::Release { arg }) = roles.get(&f.name) {
            if let Some(ty) = sig.inputs().get(*arg) {
                if ty.is_raw_ptr() {
                    handles.insert(*ty);
                }
            }
        }
    }
    CrateForeign { roles, handles }
}

/// How a declared parameter or result is typed, as far as handles go. A struct of the
/// declaring crate that is pointed to is noted in `structs` (an opaque handle type),
/// and its releasing function-pointer fields in `allocators`.
fn foreign_ty<'tcx>(
    tcx: TyCtxt<'tcx>,
    ty: Ty<'tcx>,
    krate: CrateNum,
    structs: &mut Vec<String>,
    allocators: &mut Vec<(String, String)>,
) -> ForeignTy {
    let (inner, raw) = match ty.kind() {
        ty::RawPtr(inner, _) => (*inner, true),
        ty::Ref(_, inner, ty::Mutability::Mut) => (*inner, false),
        _ => return ForeignTy::Other,
    };
    match inner.kind() {
        ty::RawPtr(..) => ForeignTy::PtrToPtr,
        ty::Adt(adt, _) if raw && adt.is_struct() && adt.did().krate == krate => {
            let name = tcx.item_name(adt.did()).to_string();
            if !structs.contains(&name) {
                structs.push(name.clone());
                for field in adt.all_fields() {
                    let field_ty = tcx
                        .type_of(field.did)
                        .instantiate_identity()
                        .skip_normalization();
                    let field_name = field.name.to_string();
                    if crate::structs::is_fn_pointer(tcx, field_ty)
                        && foreign::names_a_release(&field_name)
                    {
                        allocators.push((name.clone(), field_name));
                    }
                }
            }
            ForeignTy::PtrToNamed(name)
        }
        _ if raw => ForeignTy::Ptr,
        _ => ForeignTy::Other,
    }
}

/// Whether `def` is a `Drop::drop` whose body `mir` calls exactly one foreign function,
/// once.
pub(crate) fn drop_through_foreign<'tcx>(
    tcx: TyCtxt<'tcx>,
    def: DefId,
    mir: &mir::Body<'tcx>,
) -> bool {
    let is_drop = tcx
        .trait_impl_of_assoc(def)
        .and_then(|imp| tcx.impl_opt_trait_id(imp))
        .is_some_and(|t| tcx.is_lang_item(t, rustc_attr_ir::LangItem::Drop));
    if !is_drop {
        return false;
    }
    let foreign_calls = mir
        .basic_blocks
        .iter()
        .filter(|data| !data.is_cleanup)
        .filter(|data| match &data.terminator().kind {
            mir::TerminatorKind::Call { func, .. } => func
                .const_fn_def()
                .is_some_and(|(callee, _)| tcx.is_foreign_item(callee)),
            _ => false,
        })
        .count();
    foreign_calls == 1
}

impl<'tcx> FnLowerer<'_, 'tcx> {
    /// A call to a foreign function. It reads through the pointers it is given: a
    /// pointer that dangles is used here. A function that makes a handle owes it to its
    /// releasing function; any other only borrows the handles it is given, so they are
    /// still owed.
    pub(crate) fn foreign_call(
        &mut self,
        b: &BodyCx<'tcx>,
        def: DefId,
        args: &[Arg<'tcx>],
        dst: ValueId,
        dest_ty: Ty<'tcx>,
        span: Span,
    ) {
        let tcx = self.tcx;
        let name = tcx.item_name(def).to_string();
        let role = self.cx.foreign.role(tcx, self.cx.files, def);
        for (i, a) in args.iter().enumerate() {
            // The handle a release is given is released, not read: a second release
            // is a double release, not a use after the first.
            if matches!(role, Some(Foreign::Release { arg }) if arg == i) {
                continue;
            }
            let Some(v) = a.value else { continue };
            let reaches = match self.value(v).kind {
                ValueKind::RawPtr(Some(_)) => true,
                ValueKind::View(_) => a.ty.is_ref(),
                _ => false,
            };
            if reaches {
                self.emit(
                    b,
                    Op::Read {
                        value: v,
                        region: None,
                    },
                    span,
                );
                self.read_through_pointers(b, v, span);
            }
        }
        match role {
            Some(Foreign::Release { arg }) => {
                let how = ReleaseKind::Function(name.clone());
                let v = args.get(arg).and_then(|a| a.value);
                if let Some(v) = v.filter(|&v| !self.released_handle(b, v, &how, span)) {
                    self.emit(
                        b,
                        Op::Release {
                            value: v,
                            how: ReleaseKind::Function(name),
                        },
                        span,
                    );
                }
            }
            Some(Foreign::Create { out: None, release }) => {
                self.new_allocation(b, dst, dest_ty, ReleasedBy::Function(release), None, span);
            }
            Some(Foreign::Create {
                out: Some(out),
                release,
            }) => self.made_through(b, args.get(out), release, span),
            // In a destructor that makes this one foreign call, the pointer of the
            // value dropped is handed back to the C library that made it.
            None if self.drop_through_foreign && b.id.0 == 0 => {
                let released = args.iter().filter_map(|a| a.value).find(|&v| {
                    let value = self.value(v);
                    matches!(value.kind, ValueKind::RawPtr(Some(r))
                        if matches!(self.roots[r.0 as usize].origin, RootOrigin::Param(0)))
                });
                match released {
                    Some(v) => self.emit(
                        b,
                        Op::Release {
                            value: v,
                            how: ReleaseKind::Function(name),
                        },
                        span,
                    ),
                    None => self.unknown_call(b, &name, args, dst, span),
                }
            }
            None => {
                // Handles owed to a releasing function of the same C API stay owed:
                // another of its functions only borrows them. Other memory may be
                // kept (a buffer handed to a queue, whoever hands it back later).
                // So is a handle of the C API's own type, whoever owes it.
                let kept: Vec<Arg<'tcx>> = args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        let owed_to_foreign = a
                            .value
                            .and_then(|v| self.value(v).kind.root())
                            .is_some_and(|r| match &self.roots[r.0 as usize].released_by {
                                ReleasedBy::Function(release) => {
                                    self.cx
                                        .foreign
                                        .releases(tcx, self.cx.files, def.krate, release)
                                }
                                _ => false,
                            });
                        let borrowed = owed_to_foreign
                            || self.cx.foreign.takes_handle(tcx, self.cx.files, def, i);
                        Arg {
                            value: a.value.filter(|_| !borrowed),
                            ..*a
                        }
                    })
                    .collect();
                self.unknown_call(b, &name, &kept, dst, span);
            }
        }
    }

    /// `create(&mut h, ..)`: a new handle stored in `h` through the out-parameter, when
    /// the call succeeds. The handle is held from its first use on (the paths that do
    /// not use it are where the call failed and made nothing).
    pub(crate) fn made_through(
        &mut self,
        b: &BodyCx<'tcx>,
        out: Option<&Arg<'tcx>>,
        release: String,
        span: Span,
    ) {
        let Some(pointer) = out.and_then(|a| a.value) else {
            return;
        };
        let Some(slot) = self.pointees.get(&pointer).copied() else {
            // Stored somewhere this function does not name: not its to release.
            return;
        };
        let root = self.slot_root(slot, RootOrigin::Alloc, ReleasedBy::Function(release), span);
        self.roots[root.0 as usize].held_from_use = true;
        self.emit(
            b,
            Op::Alloc {
                dst: slot,
                root,
                size: None,
            },
            span,
        );
        self.define(slot, ValueKind::RawPtr(Some(root)), None);
        // A pointer that held null before holds the handle now.
        self.nulls.remove(&slot);
        self.value_mut(slot).kind = ValueKind::RawPtr(Some(root));
    }
}
