//! Coarse classification of written types: which bindings may hold tensor memory, with
//! what element size and how many dimensions, without a type checker.

use crate::ir::TyClass;
use crate::models::{self, class_of_type_name};

/// The class of a written type.
pub fn classify_type(ty: &syn::Type) -> TyClass {
    match ty {
        syn::Type::Reference(r) => match classify_type(&r.elem) {
            TyClass::Unknown if matches!(*r.elem, syn::Type::Slice(_)) => TyClass::Slice,
            TyClass::Vec => TyClass::Slice,
            TyClass::Array => TyClass::ArrayView,
            other => other,
        },
        syn::Type::Slice(_) | syn::Type::Array(_) => TyClass::Slice,
        syn::Type::Ptr(_) => TyClass::RawPtr,
        syn::Type::Paren(p) => classify_type(&p.elem),
        syn::Type::Group(g) => classify_type(&g.elem),
        syn::Type::Path(p) => {
            let Some(last) = p.path.segments.last() else {
                return TyClass::Unknown;
            };
            let name = last.ident.to_string();
            if models::is_number_type(&name) {
                return TyClass::Scalar;
            }
            match class_of_type_name(&name) {
                // `Box<[T]>`, `Arc<[T]>`, `ManuallyDrop<Vec<T>>`: look at the argument.
                TyClass::Shared | TyClass::Unknown if first_type_arg(last).is_some() => {
                    let inner = first_type_arg(last).map_or(TyClass::Unknown, classify_type);
                    match inner {
                        TyClass::Slice | TyClass::Vec => TyClass::Vec,
                        TyClass::Array | TyClass::Tensor => inner,
                        _ => class_of_type_name(&name),
                    }
                }
                class => class,
            }
        }
        _ => TyClass::Unknown,
    }
}

/// Element size in bytes of the innermost scalar type of `ty`, when written.
pub fn elem_bytes_of_type(ty: &syn::Type) -> Option<u32> {
    match ty {
        syn::Type::Reference(r) => elem_bytes_of_type(&r.elem),
        syn::Type::Ptr(p) => elem_bytes_of_type(&p.elem),
        syn::Type::Slice(s) => elem_bytes_of_type(&s.elem),
        syn::Type::Array(a) => elem_bytes_of_type(&a.elem),
        syn::Type::Paren(p) => elem_bytes_of_type(&p.elem),
        syn::Type::Tuple(t) if t.elems.is_empty() => Some(0),
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?;
            let name = last.ident.to_string();
            if let Some(bytes) = models::scalar_bytes(&name) {
                return Some(bytes);
            }
            first_type_arg(last).and_then(elem_bytes_of_type)
        }
        _ => None,
    }
}

/// The type of one element of a buffer type: `Slot` for `&[Slot]`, `f32` for
/// `ArrayView2<f32>` and `*mut f32`, `CachePadded<AtomicU64>` for `Vec<CachePadded<..>>`.
pub fn element_type(ty: &syn::Type) -> Option<&syn::Type> {
    element_type_in(ty, false)
}

/// Whether the elements of buffer type `ty` are pointers or references (`&[*mut u8]`,
/// `Vec<&str>`), which [`element_type`] looks through.
pub fn elements_are_pointers(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => elements_are_pointers(&r.elem),
        syn::Type::Ptr(p) => elements_are_pointers(&p.elem),
        syn::Type::Paren(p) => elements_are_pointers(&p.elem),
        syn::Type::Slice(s) => matches!(&*s.elem, syn::Type::Ptr(_) | syn::Type::Reference(_)),
        syn::Type::Array(a) => matches!(&*a.elem, syn::Type::Ptr(_) | syn::Type::Reference(_)),
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .and_then(first_type_arg)
            .is_some_and(|arg| {
                matches!(arg, syn::Type::Ptr(_) | syn::Type::Reference(_))
                    || elements_are_pointers(arg)
            }),
        _ => false,
    }
}

/// [`element_type`], `inside` a buffer already: there a pointer to one object
/// (`Arc<Local>` of `&[Arc<Local>]`) is the element itself, and what it points to lives
/// elsewhere.
fn element_type_in(ty: &syn::Type, inside: bool) -> Option<&syn::Type> {
    match ty {
        syn::Type::Reference(r) => element_type_in(&r.elem, inside),
        // `*mut Vec<f32>` steps over `Vec`s: each one is an element, owning a buffer
        // of its own.
        syn::Type::Ptr(p) if owns_buffer(&p.elem) => Some(&p.elem),
        syn::Type::Ptr(p) => element_type_in(&p.elem, inside),
        syn::Type::Slice(s) => element_type_in(&s.elem, true),
        syn::Type::Array(a) => element_type_in(&a.elem, true),
        syn::Type::Paren(p) => element_type_in(&p.elem, inside),
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?;
            let name = last.ident.to_string();
            let container = models::is_element_container(&name)
                || matches!(
                    class_of_type_name(&name),
                    TyClass::Array | TyClass::ArrayView
                );
            match first_type_arg(last) {
                // `Option<Vec<CString>>`: the elements of the buffer it may hold.
                Some(arg) if models::is_optional_type(&name) => element_type_in(arg, inside),
                Some(arg)
                    if inside
                        && models::is_object_pointer(&name)
                        && !matches!(arg, syn::Type::Slice(_)) =>
                {
                    Some(ty)
                }
                Some(arg) if container => {
                    element_type_in(arg, inside || !models::is_object_pointer(&name))
                }
                _ => Some(ty),
            }
        }
        _ => None,
    }
}

fn owns_buffer(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p)
        if p.path.segments.last().is_some_and(|s| models::is_owned_buffer(&s.ident.to_string())))
}

/// Number of dimensions of an ndarray type (`ArrayView2` → 2, `&[T]` → 1).
pub fn ndim_of_type(ty: &syn::Type) -> Option<usize> {
    match ty {
        syn::Type::Reference(r) => ndim_of_type(&r.elem),
        syn::Type::Slice(_) | syn::Type::Array(_) | syn::Type::Ptr(_) => Some(1),
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?;
            models::rank_of_type_name(&last.ident.to_string())
        }
        _ => None,
    }
}

fn first_type_arg(seg: &syn::PathSegment) -> Option<&syn::Type> {
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

/// The name of the type a value of `ty` is, through references and shared owners:
/// `ThreadPool` for `&ThreadPool` and `Arc<ThreadPool>`.
pub fn named_type(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Reference(r) => named_type(&r.elem),
        syn::Type::Paren(p) => named_type(&p.elem),
        syn::Type::Group(g) => named_type(&g.elem),
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?;
            let name = last.ident.to_string();
            if matches!(class_of_type_name(&name), TyClass::Shared) || name == "Box" {
                return first_type_arg(last).and_then(named_type);
            }
            Some(name)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> syn::Type {
        syn::parse_str(s).expect("test type parses")
    }

    #[test]
    fn tensor_parameter_types_are_classified() {
        assert_eq!(classify_type(&ty("&mut [f32]")), TyClass::Slice);
        assert_eq!(
            classify_type(&ty("ArrayViewMut2<'_, f32>")),
            TyClass::ArrayView
        );
        assert_eq!(classify_type(&ty("&Array2<f64>")), TyClass::ArrayView);
        assert_eq!(classify_type(&ty("tch::Tensor")), TyClass::Tensor);
        assert_eq!(classify_type(&ty("*mut T")), TyClass::RawPtr);
        assert_eq!(classify_type(&ty("Vec<u8>")), TyClass::Vec);
        assert_eq!(classify_type(&ty("Box<[f32]>")), TyClass::Vec);
        assert_eq!(classify_type(&ty("usize")), TyClass::Scalar);
    }

    #[test]
    fn element_size_and_rank_come_from_the_written_type() {
        assert_eq!(elem_bytes_of_type(&ty("&mut [f64]")), Some(8));
        assert_eq!(elem_bytes_of_type(&ty("ArrayView2<u16>")), Some(2));
        assert_eq!(ndim_of_type(&ty("ArrayViewMut3<f32>")), Some(3));
        assert_eq!(ndim_of_type(&ty("ArrayD<f32>")), None);
        assert_eq!(ndim_of_type(&ty("&[f32]")), Some(1));
    }

    #[test]
    fn element_type_looks_through_buffers_but_not_cells() {
        let name = |s: &str| element_type(&ty(s)).and_then(crate::index::type_name);
        assert_eq!(name("&[Slot]").as_deref(), Some("Slot"));
        assert_eq!(
            name("Vec<CachePadded<AtomicU64>>").as_deref(),
            Some("CachePadded")
        );
        assert_eq!(name("ArrayViewMut2<'_, f64>").as_deref(), Some("f64"));
        assert_eq!(name("*mut u8").as_deref(), Some("u8"));
        // A pointer to one object inside a buffer is the element.
        assert_eq!(name("&[Arc<Local>]").as_deref(), Some("Arc"));
        assert_eq!(name("Vec<Box<Local>>").as_deref(), Some("Box"));
        assert_eq!(name("Arc<Vec<u64>>").as_deref(), Some("u64"));
        assert_eq!(name("Box<[Slot]>").as_deref(), Some("Slot"));
    }
}
