//! What a compiler type says about memory: its [`TyClass`], the element type of the
//! buffer it owns or reaches, and sizes from the real layouts.
//!
//! Library types are known by their crate and name as the compiler resolved them
//! (`alloc`'s `Vec`, `ndarray`'s `ArrayBase` with its storage parameter), never by how
//! the code spells them.

use rustc_middle::ty::{self, Ty, TyCtxt, TypingEnv};

use tensor_lint_analyzer::ir::TyClass;

/// A raw pointer, or a `NonNull` one.
pub(crate) fn is_pointer<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    ty.is_raw_ptr() || adt_is(tcx, ty, "core", "NonNull")
}

/// Whether `ty` is the ADT named `name` defined in crate `krate` (`"alloc"`, `"Vec"`).
pub(crate) fn adt_is(tcx: TyCtxt<'_>, ty: Ty<'_>, krate: &str, name: &str) -> bool {
    ty.ty_adt_def().is_some_and(|adt| {
        let did = adt.did();
        tcx.item_name(did).as_str() == name && tcx.crate_name(did.krate).as_str() == krate
    })
}

/// Which storage an ndarray `ArrayBase<S, D>` has: `Some(true)` owned, `Some(false)` a
/// view, `None` when `ty` is no ndarray array.
fn ndarray_owned(tcx: TyCtxt<'_>, ty: Ty<'_>) -> Option<bool> {
    if !adt_is(tcx, ty, "ndarray", "ArrayBase") {
        return None;
    }
    let ty::Adt(_, args) = ty.kind() else {
        return None;
    };
    let storage = args.types().next()?;
    let owned = adt_is(tcx, storage, "ndarray", "OwnedRepr")
        || adt_is(tcx, storage, "ndarray", "OwnedArcRepr");
    Some(owned)
}

/// The class of a value of type `ty`.
pub(crate) fn class_of<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> TyClass {
    match ty.kind() {
        ty::Bool | ty::Char | ty::Int(_) | ty::Uint(_) | ty::Float(_) => TyClass::Scalar,
        ty::RawPtr(..) | ty::FnPtr(..) => TyClass::RawPtr,
        ty::Ref(_, inner, _) => match class_of(tcx, *inner) {
            TyClass::Vec | TyClass::Slice | TyClass::Scalar => TyClass::Slice,
            TyClass::Array | TyClass::ArrayView => TyClass::ArrayView,
            TyClass::Unknown if inner.is_slice() || inner.is_str() => TyClass::Slice,
            other => other,
        },
        ty::Slice(_) | ty::Str => TyClass::Slice,
        ty::Array(..) => TyClass::Vec,
        ty::Adt(adt, args) => {
            if adt.is_box() {
                return TyClass::Vec;
            }
            let krate = tcx.crate_name(adt.did().krate);
            let name = tcx.item_name(adt.did());
            match (krate.as_str(), name.as_str()) {
                ("alloc", "Vec" | "String") => TyClass::Vec,
                // A `Cow` of a slice or string: a vector when it is owned, a borrowed
                // slice otherwise; it may own its buffer, as a vector does.
                ("alloc", "Cow") if cow_of_buffer(ty) => TyClass::Vec,
                ("alloc", "Arc" | "Rc") => TyClass::Shared,
                ("core", "NonNull") => TyClass::RawPtr,
                ("core", "ManuallyDrop" | "MaybeUninit") => args
                    .types()
                    .next()
                    .map_or(TyClass::Unknown, |inner| class_of(tcx, inner)),
                ("tch", "Tensor") | ("candle_core", "Tensor") => TyClass::Tensor,
                ("ndarray", "ArrayBase") => match ndarray_owned(tcx, ty) {
                    Some(true) => TyClass::Array,
                    _ => TyClass::ArrayView,
                },
                // What arrays dereference to since ndarray 0.17.
                ("ndarray", "ArrayRef" | "LayoutRef" | "RawRef") => TyClass::ArrayView,
                // The matrices and matrix views of faer and nalgebra.
                ("faer", "Mat") | ("nalgebra", "Matrix") => TyClass::ArrayView,
                _ if adt.did().is_local() => TyClass::LocalStruct,
                _ => TyClass::Unknown,
            }
        }
        _ => TyClass::Unknown,
    }
}

/// The rank of an ndarray array or view of a fixed dimension (`Ix2`, that is
/// `Dim<[usize; 2]>`), behind references.
pub(crate) fn ndarray_rank<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> Option<usize> {
    let ty = ty.peel_refs();
    let ty::Adt(adt, args) = ty.kind() else {
        return None;
    };
    if tcx.crate_name(adt.did().krate).as_str() != "ndarray" {
        return None;
    }
    args.types().find_map(|arg| {
        let ty::Adt(dim, dim_args) = arg.kind() else {
            return None;
        };
        if tcx.item_name(dim.did()).as_str() != "Dim" {
            return None;
        }
        let ty::Array(_, len) = dim_args.types().next()?.kind() else {
            return None;
        };
        len.try_to_target_usize(tcx)
            .and_then(|n| usize::try_from(n).ok())
    })
}

/// The type of the elements a value of type `ty` owns or reaches: a buffer's, a
/// slice's, an array's, a pointer's or reference's target (the target's elements when
/// the target is itself a buffer).
pub(crate) fn element_of<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> Option<Ty<'tcx>> {
    match ty.kind() {
        ty::Slice(elem) | ty::Array(elem, _) => Some(*elem),
        ty::Str => Some(tcx.types.u8),
        ty::Ref(_, inner, _) | ty::RawPtr(inner, _) => {
            if is_buffer(tcx, *inner) {
                element_of(tcx, *inner)
            } else {
                Some(*inner)
            }
        }
        ty::Adt(adt, args) => {
            if adt.is_box() {
                let inner = args.types().next()?;
                return if is_buffer(tcx, inner) {
                    element_of(tcx, inner)
                } else {
                    Some(inner)
                };
            }
            let krate = tcx.crate_name(adt.did().krate);
            let name = tcx.item_name(adt.did());
            match (krate.as_str(), name.as_str()) {
                ("alloc", "Vec") | ("core", "NonNull") => args.types().next(),
                ("alloc", "String") => Some(tcx.types.u8),
                ("alloc", "Cow") if cow_of_buffer(ty) => element_of(tcx, args.types().next()?),
                ("core", "ManuallyDrop" | "MaybeUninit") => element_of(tcx, args.types().next()?),
                ("ndarray", "ArrayRef" | "LayoutRef" | "RawRef") => args.types().next(),
                ("ndarray", "ArrayBase") => {
                    // `ArrayBase<S, D>`: the element is the storage's parameter.
                    let storage = args.types().next()?;
                    let ty::Adt(_, storage_args) = storage.kind() else {
                        return None;
                    };
                    let first = storage_args.types().next()?;
                    match first.kind() {
                        ty::Ref(_, elem, _) | ty::RawPtr(elem, _) => Some(*elem),
                        _ => Some(first),
                    }
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether `ty` is a buffer of elements (rather than one value): a slice, an array, a
/// vector, a boxed slice, an ndarray array.
pub(crate) fn is_buffer<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    match ty.kind() {
        ty::Slice(_) | ty::Array(..) | ty::Str => true,
        ty::Adt(adt, args) if adt.is_box() => {
            args.types().next().is_some_and(|t| is_buffer(tcx, t))
        }
        ty::Adt(adt, _) => {
            let krate = tcx.crate_name(adt.did().krate);
            let name = tcx.item_name(adt.did());
            matches!(
                (krate.as_str(), name.as_str()),
                ("alloc", "Vec" | "String")
                    | ("ndarray", "ArrayBase" | "ArrayRef" | "LayoutRef" | "RawRef")
            ) || adt_is(tcx, ty, "alloc", "Cow") && cow_of_buffer(ty)
        }
        _ => false,
    }
}

/// Whether `ty` reaches a buffer of elements (a slice, a reference to a vector or
/// array) rather than one value (a reference to an `f32`).
pub(crate) fn is_buffer_target<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    match ty.kind() {
        ty::Ref(_, inner, _) | ty::RawPtr(inner, _) => is_buffer(tcx, *inner),
        _ => is_buffer(tcx, ty),
    }
}

/// Whether a value of type `ty` owns heap memory that its drop releases: a vector, a
/// box, an owned array, a string, a tensor handle.
pub(crate) fn owns_memory<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    match ty.kind() {
        ty::Adt(adt, _) if adt.is_box() => true,
        ty::Adt(..) => {
            adt_is(tcx, ty, "alloc", "Vec")
                || adt_is(tcx, ty, "alloc", "String")
                || adt_is(tcx, ty, "alloc", "CString")
                || adt_is(tcx, ty, "alloc", "Cow") && cow_of_buffer(ty)
                || adt_is(tcx, ty, "tch", "Tensor")
                || ndarray_owned(tcx, ty) == Some(true)
        }
        _ => false,
    }
}

/// The byte offset of field `field` of struct `ty`, where the compiler laid it out.
pub(crate) fn field_offset<'tcx>(
    tcx: TyCtxt<'tcx>,
    env: TypingEnv<'tcx>,
    ty: Ty<'tcx>,
    field: usize,
) -> Option<u64> {
    if !ty.ty_adt_def().is_some_and(|a| a.is_struct()) {
        return None;
    }
    let layout = tcx.layout_of(env.as_query_input(ty)).ok()?;
    (field < layout.fields.count()).then(|| layout.fields.offset(field).bytes())
}

/// Size in bytes of `ty`, from its layout; `None` for unsized or generic types whose
/// layout depends on what the caller picks.
pub(crate) fn size_of<'tcx>(tcx: TyCtxt<'tcx>, env: TypingEnv<'tcx>, ty: Ty<'tcx>) -> Option<u64> {
    let layout = tcx.layout_of(env.as_query_input(ty)).ok()?;
    layout.is_sized().then(|| layout.size.bytes())
}

/// The name of a type as the user would write it (`f32`, `Slot`), for messages.
pub(crate) fn short_name<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> String {
    // `Atomic<u64>` is what users write `AtomicU64`.
    if adt_is(tcx, ty, "core", "Atomic") {
        if let ty::Adt(_, args) = ty.kind() {
            if let Some(inner) = args.types().next() {
                let name = match inner.kind() {
                    ty::RawPtr(..) => "Ptr".to_string(),
                    ty::Bool => "Bool".to_string(),
                    _ => {
                        let text = inner.to_string();
                        let mut chars = text.chars();
                        chars
                            .next()
                            .map(|c| c.to_uppercase().chain(chars).collect())
                            .unwrap_or_default()
                    }
                };
                return format!("Atomic{name}");
            }
        }
    }
    match ty.kind() {
        ty::Adt(adt, _) => tcx.item_name(adt.did()).to_string(),
        _ => ty.to_string(),
    }
}

/// Whether `ty` (a `Cow<'_, B>`) borrows or owns a slice or a string.
fn cow_of_buffer(ty: Ty<'_>) -> bool {
    let ty::Adt(_, args) = ty.kind() else {
        return false;
    };
    args.types()
        .next()
        .is_some_and(|b| matches!(b.kind(), ty::Slice(_) | ty::Str))
}

/// Whether a value of type `ty` is plain data: numbers, atomics, cells and padded or
/// aligned wrappers of them, arrays and structs of those; nothing that owns or points to
/// other memory.
pub(crate) fn plain_data<'tcx>(tcx: TyCtxt<'tcx>, env: TypingEnv<'tcx>, ty: Ty<'tcx>) -> bool {
    plain_data_at(tcx, env, ty, 0)
}

fn plain_data_at<'tcx>(tcx: TyCtxt<'tcx>, env: TypingEnv<'tcx>, ty: Ty<'tcx>, depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    let ty = tcx
        .try_normalize_erasing_regions(env, ty::Unnormalized::new(ty))
        .unwrap_or(ty);
    match ty.kind() {
        ty::Bool | ty::Char | ty::Int(_) | ty::Uint(_) | ty::Float(_) => true,
        ty::Array(elem, _) => plain_data_at(tcx, env, *elem, depth + 1),
        ty::Tuple(parts) => parts.iter().all(|p| plain_data_at(tcx, env, p, depth + 1)),
        ty::Adt(adt, args) if adt.is_struct() && !adt.is_box() => {
            if owns_memory(tcx, ty) || tcx.adt_destructor(adt.did()).is_some() {
                return false;
            }
            adt.all_fields()
                .all(|f| plain_data_at(tcx, env, f.ty(tcx, args).skip_normalization(), depth + 1))
        }
        _ => false,
    }
}

/// The struct an `Arc<S>`, `Rc<S>` or `&S` shares, when it is plain data with interior
/// mutability (atomics, cells): counters that threads write through a shared handle.
pub(crate) fn shared_counters<'tcx>(
    tcx: TyCtxt<'tcx>,
    env: TypingEnv<'tcx>,
    ty: Ty<'tcx>,
) -> Option<Ty<'tcx>> {
    let object = match ty.kind() {
        ty::Ref(_, inner, ty::Mutability::Not) => *inner,
        ty::Adt(_, args) if adt_is(tcx, ty, "alloc", "Arc") || adt_is(tcx, ty, "alloc", "Rc") => {
            args.types().next()?
        }
        _ => return None,
    };
    let ty::Adt(adt, _) = object.kind() else {
        return None;
    };
    let interior = object.walk().any(|arg| {
        arg.as_type()
            .and_then(|t| t.ty_adt_def())
            .is_some_and(|a| a.is_unsafe_cell())
    }) || has_cell(tcx, object, 0);
    (adt.is_struct() && adt.did().is_local() && plain_data(tcx, env, object) && interior)
        .then_some(object)
}

/// The struct an `Arc<S>`, `Rc<S>` or `&S` shares, when it is a struct of the crate with
/// interior mutability (atomics, cells) among fields that are not plain data (pointers,
/// buffers): its cells are written in place, its other fields reach memory elsewhere.
pub(crate) fn shared_cells<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> Option<Ty<'tcx>> {
    let object = match ty.kind() {
        ty::Ref(_, inner, ty::Mutability::Not) => *inner,
        _ => return None,
    };
    let ty::Adt(adt, _) = object.kind() else {
        return None;
    };
    (adt.is_struct() && adt.did().is_local() && has_cell(tcx, object, 0)).then_some(object)
}

/// Whether a field (at any depth) of `ty` is an `UnsafeCell` (an atomic, a `Cell`).
fn has_cell<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>, depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    match ty.kind() {
        ty::Adt(adt, _) if adt.is_unsafe_cell() => true,
        ty::Adt(adt, args) => adt
            .all_fields()
            .any(|f| has_cell(tcx, f.ty(tcx, args).skip_normalization(), depth + 1)),
        ty::Array(elem, _) => has_cell(tcx, *elem, depth + 1),
        _ => false,
    }
}
