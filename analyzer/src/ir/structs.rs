//! The crate's structs as the analysis sees them: fields with their types, sizes and
//! offsets from the compiler's layout, and what the type's `Drop` and methods do with
//! the memory its pointer fields own.

use crate::ir::TyClass;
use crate::source::Span;

/// One field of a struct.
#[derive(Clone, Debug)]
pub struct FieldInfo {
    /// Field name, or its position for tuple structs.
    pub name: String,
    pub ty: TyClass,
    /// Last path segment of the field type (`CachePadded`, `AtomicUsize`, `f32`);
    /// `[u64]` for arrays.
    pub ty_name: String,
    /// The type of the elements a pointer or buffer field points to (`Node` for
    /// `NonNull<Node>`, `f32` for `Vec<f32>`).
    pub elem_name: Option<String>,
    /// Size in bytes, from the compiler's layout, when the type is sized.
    pub bytes: Option<u64>,
    /// Size of one element of a buffer field (`RwLock<Map>` of
    /// `Box<[RwLock<Map>]>`), when known.
    pub elem_bytes: Option<u64>,
    /// The type has a lifetime argument (`Vec<'bump, u8>`): its storage is borrowed
    /// from something that outlives it (an arena, a pool).
    pub borrows_storage: bool,
    /// A function pointer (`fn(..)`, `Option<unsafe extern "C" fn(..)>`).
    pub fn_pointer: bool,
    /// Byte offset in the struct, from the compiler's layout.
    pub offset: Option<u64>,
}

/// A struct of the crate.
#[derive(Clone, Debug)]
pub struct StructItem {
    pub name: String,
    pub module: Vec<String>,
    pub fields: Vec<FieldInfo>,
    /// `N` of `#[repr(align(N))]`.
    pub repr_align: Option<u64>,
    /// Where `#[derive(Clone)]` names `Clone`: a clone copies every field, raw pointers
    /// included.
    pub derives_clone: Option<Span>,
    /// Its `Drop` releases what a raw pointer field points to.
    pub raw_owner: bool,
    /// Where a `Clone` written by hand builds the clone with a raw pointer field copied
    /// from the value cloned.
    pub clone_copies_pointer: Option<Span>,
    /// Methods that release what a pointer field points to and leave the field as it
    /// was, which the type's `Drop` releases again.
    pub released_not_reset: Vec<ReleasedNotReset>,
    /// Size in bytes, from the compiler's layout.
    pub size: Option<u64>,
    pub span: Span,
}

/// A method that releases a field its type's `Drop` releases again: see
/// [`StructItem::released_not_reset`].
#[derive(Clone, Debug)]
pub struct ReleasedNotReset {
    pub method: String,
    pub field: String,
    /// The method takes `self`: the value is dropped at its end (at `dropped_at`).
    pub by_value: bool,
    /// The field is an atomic pointer (read with `load`, reset with `swap`).
    pub atomic: bool,
    /// The method's release, and the `Drop`'s.
    pub release: Span,
    pub drop_release: Span,
    pub dropped_at: Option<Span>,
}

impl StructItem {
    /// Each field with its byte offset and size, in declaration order: where the
    /// compiler laid it out when that is known, else where the size estimate assumes
    /// (fields one after the other), up to the first field of unknown size.
    pub fn field_places(&self) -> impl Iterator<Item = (&FieldInfo, i64, i64)> {
        let mut offset = Some(0i64);
        self.fields.iter().map_while(move |f| {
            let bytes = i64::try_from(f.bytes?).ok()?;
            let at = match f.offset {
                Some(at) => i64::try_from(at).ok()?,
                None => offset?,
            };
            offset = at.checked_add(bytes);
            Some((f, at, bytes))
        })
    }
}
