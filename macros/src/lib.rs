//! Annotations that tell [tensor-lint] what a function does with tensor memory.
//!
//! tensor-lint is a static analyzer: it reads your source and never compiles or runs it.
//! Most of what it needs it infers (ndarray, tch, rayon and std are modelled, and
//! crate-local helpers get effect summaries), but some facts only the author knows: that
//! a pool's `checkout` hands out memory that must be returned, that a function is a hot
//! kernel, that `n` is always a multiple of 16. These attributes state those facts where
//! the analyzer reads them.
//!
//! Every annotation **changes nothing in the compiled program**: on success it emits the
//! item exactly as written. What it does at compile time is check its own arguments, so a
//! misspelt lint name or a parameter that does not exist is a compile error with a span
//! (shown in the IDE like any other error), not an annotation the analyzer silently
//! ignores.
//!
//! | annotation | on | says |
//! |---|---|---|
//! | [`#[tensor_lint::kernel]`](macro@kernel) | functions | hot code: the perf lints apply; `assume(...)` bounds symbolic sizes |
//! | [`#[tensor_lint::alloc]`](macro@alloc) | functions | returns newly allocated memory that must be released |
//! | [`#[tensor_lint::free(ARG)]`](macro@free) | functions | releases the parameter `ARG` |
//! | [`#[tensor_lint::view(of = ARG)]`](macro@view) | functions | the returned value aliases `ARG`'s memory |
//! | [`#[tensor_lint::inplace(ARG, …)]`](macro@inplace) | functions | overwrites the listed parameters in place |
//! | [`#[tensor_lint::allow(LINT, …)]`](macro@allow) | any item | silences the listed lints inside the item |
//!
//! "Functions" means free functions, methods, trait methods (with or without a default
//! body) and functions declared in `extern` blocks. Writing `self` names the receiver.
//!
//! ```
//! pub struct Pool {
//!     free_list: Vec<Vec<f32>>,
//! }
//!
//! impl Pool {
//!     /// Hands out a buffer; the caller must give it back.
//!     #[tensor_lint::alloc]
//!     pub fn checkout(&mut self, len: usize) -> Vec<f32> {
//!         let mut buf = self.free_list.pop().unwrap_or_default();
//!         buf.resize(len, 0.0);
//!         buf
//!     }
//!
//!     #[tensor_lint::free(buf)]
//!     pub fn give_back(&mut self, buf: Vec<f32>) {
//!         self.free_list.push(buf);
//!     }
//! }
//!
//! #[tensor_lint::view(of = data)]
//! pub fn row(data: &[f32], cols: usize, r: usize) -> &[f32] {
//!     &data[r * cols..(r + 1) * cols]
//! }
//!
//! #[tensor_lint::inplace(x)]
//! pub fn relu_(x: &mut [f32]) {
//!     x.iter_mut().for_each(|v| *v = v.max(0.0));
//! }
//!
//! #[tensor_lint::kernel(assume(n >= 1, n % 16 == 0))]
//! pub fn scale(pool: &mut Pool, x: &[f32], n: usize) -> f32 {
//!     let mut tmp = pool.checkout(n);
//!     for (t, v) in tmp.iter_mut().zip(x) {
//!         *t = 2.0 * v;
//!     }
//!     let total = tmp.iter().sum();
//!     pool.give_back(tmp);
//!     total
//! }
//!
//! #[tensor_lint::allow(alias_race, tensor_lint::false_sharing)]
//! pub mod benchmarks {}
//! # fn main() {}
//! ```
//!
//! # Silencing one statement
//!
//! Attribute macros cannot be placed on statements or expressions in stable Rust, so
//! `allow` works on items only. For a single statement, write the comment form on the line
//! before it; the analyzer reads it, the compiler ignores it:
//!
//! ```
//! # fn demo(a: &mut Vec<f32>) {
//! // tensor-lint: allow(unsafe_inplace)
//! a.iter_mut().for_each(|v| *v *= 2.0);
//! # }
//! ```
//!
//! # Errors
//!
//! Each annotation rejects, with the span of the offending token:
//! - an unknown argument name (`kernel(asume(...))`: "unknown argument `asume`, expected
//!   `assume`");
//! - a missing or extra argument (`free()`, `free(a, b)`, `alloc(x)`);
//! - a parameter that the function does not have ("`lem` is not a parameter of
//!   `checkout`, did you mean `len`?");
//! - an unknown lint in `allow`, with the closest lint name when there is one;
//! - a malformed `assume(...)` condition (see [`macro@kernel`] for the grammar);
//! - a function annotation on something that is not a function.
//!
//! [tensor-lint]: https://example.invalid/tensor-lint

#![forbid(unsafe_code)]

mod annotated_fn;
mod annotations;
mod assume;
mod error_list;
mod lint_name;
mod lint_names;
mod similar_name;

use proc_macro::TokenStream;

/// Emits `item` unchanged, preceded by the errors when `checked` failed.
///
/// The item is kept even on error so that a bad annotation is the only error reported,
/// not also every use of a function that would otherwise have disappeared.
///
/// Compiled by tensor-lint's driver (which sets [`DRIVER_ENV`] in its own process and
/// registers the tool `tensor_lint_annotation`), a checked annotation also leaves itself
/// on the item as the tool attribute `#[tensor_lint_annotation::NAME(ARGS)]`, which the
/// driver reads from the compiler's attributes. Any other compilation sees the item
/// exactly as written.
fn emit(name: &str, args: TokenStream, checked: syn::Result<()>, item: TokenStream) -> TokenStream {
    // Under the driver, tensor-lint reads the annotation itself and reports what is
    // wrong with it as its own finding, so that the rest of the crate is still checked.
    match checked {
        _ if std::env::var_os(DRIVER_ENV).is_some() => {
            let name = proc_macro2::Ident::new(name, proc_macro2::Span::call_site());
            let args = proc_macro2::TokenStream::from(args);
            let item = proc_macro2::TokenStream::from(item);
            quote::quote!(#[tensor_lint_annotation::#name(#args)] #item).into()
        }
        Ok(()) => item,
        Err(error) => {
            let mut output = TokenStream::from(error.to_compile_error());
            output.extend(item);
            output
        }
    }
}

/// Set by tensor-lint's driver in the compiler's process for the crates it analyses.
const DRIVER_ENV: &str = "TENSOR_LINT_ANNOTATIONS";

/// Marks a function as a hot kernel, optionally with assumptions on its sizes.
///
/// The perf lints (`missed_inplace`, `alloc_in_loop`) only report inside kernels, where
/// an allocation per call matters. The alias oracle also uses the assumptions: an
/// overlap that is impossible when `n % 16 == 0` is not reported in a kernel that assumes
/// it, and a race "proven for all inputs" means all inputs the assumptions allow.
///
/// ```
/// #[tensor_lint::kernel]
/// fn axpy(a: f32, x: &[f32], y: &mut [f32]) {
///     for (yi, xi) in y.iter_mut().zip(x) {
///         *yi += a * xi;
///     }
/// }
///
/// #[tensor_lint::kernel(assume(n >= 1, n % 16 == 0, rows * n <= 1_048_576))]
/// fn row_sums(data: &[f32], rows: usize, n: usize, out: &mut [f32]) {
///     for (r, chunk) in data.chunks_exact(n).take(rows).enumerate() {
///         out[r] = chunk.iter().sum();
///     }
/// }
/// # fn main() {}
/// ```
///
/// # The `assume` grammar
///
/// `assume(COND, …)` takes one or more comma-separated conditions, all of which hold (a
/// list is a conjunction). A condition is one comparison `==`, `!=`, `<`, `<=`, `>` or
/// `>=` between two integer expressions made of:
/// - **plain identifiers** (`n`, `rows`, `BLOCK`): parameters, locals, constants or const
///   generics, as the analyzer's symbolic sizes;
/// - integer literals up to `i64::MAX` (`16`, `0x40`, `1_000`, `8usize`);
/// - `+`, `-`, `*`, `/`, `%`, unary `-` and parentheses.
///
/// Anything else is a compile error at the offending token: field accesses (`self.n`,
/// `x.len`), method and function calls, paths (`consts::N`), casts, floats, bit and
/// shift operators, `&&`/`||`, `!`, chained comparisons, division by a literal zero, and
/// conditions that mention no identifier at all (`1 == 1`). To assume something about
/// `x.len()`, bind it first (`let n = x.len();`) and assume on `n`.
///
/// ```compile_fail
/// #[tensor_lint::kernel(assume(x.len() % 16 == 0))] // method calls are not allowed
/// fn f(x: &[f32]) {}
/// # fn main() {}
/// ```
#[proc_macro_attribute]
pub fn kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    emit(
        "kernel",
        args.clone(),
        annotations::check_kernel(args.into(), item.clone().into()),
        item,
    )
}

/// Marks a function whose return value is newly allocated tensor memory that the caller
/// must release: a pool checkout, an arena allocation, a raw allocator.
///
/// The `leak` lint then follows the returned value through the caller and reports paths
/// (early `return`, `?`, `break`) where it is never released; pair it with a function
/// annotated [`macro@free`]. Takes no arguments, and the function must return something.
///
/// ```
/// use std::alloc::{alloc_zeroed, Layout};
///
/// /// Caller releases with `release(ptr, len)`.
/// #[tensor_lint::alloc]
/// unsafe fn zeroed(len: usize) -> *mut f32 {
///     alloc_zeroed(Layout::array::<f32>(len).expect("size fits")) as *mut f32
/// }
/// # fn main() {}
/// ```
#[proc_macro_attribute]
pub fn alloc(args: TokenStream, item: TokenStream) -> TokenStream {
    emit(
        "alloc",
        args.clone(),
        annotations::check_alloc(args.into(), item.clone().into()),
        item,
    )
}

/// Marks a function that releases the memory of its parameter `ARG`.
///
/// `ARG` is the name of one parameter (or `self`). After a call, the analyzer treats the
/// argument passed there as freed: a second release is `double_free`, any later read,
/// write or view is `use_after_free`. A function that releases two parameters carries
/// two annotations.
///
/// ```
/// use std::alloc::{dealloc, Layout};
///
/// #[tensor_lint::free(ptr)]
/// unsafe fn release(ptr: *mut f32, len: usize) {
///     dealloc(ptr as *mut u8, Layout::array::<f32>(len).expect("size fits"));
/// }
///
/// struct Arena(Vec<u8>);
///
/// impl Arena {
///     #[tensor_lint::free(self)]
///     fn reset(&mut self) {
///         self.0.clear();
///     }
/// }
/// # fn main() {}
/// ```
#[proc_macro_attribute]
pub fn free(args: TokenStream, item: TokenStream) -> TokenStream {
    emit(
        "free",
        args.clone(),
        annotations::check_free(args.into(), item.clone().into()),
        item,
    )
}

/// Marks a function whose return value aliases the memory of its parameter `ARG`.
///
/// Reads and writes through the returned value then count as accesses to `ARG` (for
/// `alias_race` and `unsafe_inplace`), and freeing `ARG` invalidates it (for
/// `use_after_free`). Written `of = ARG`, with `ARG` one parameter name (or `self`); the
/// function must return something.
///
/// ```
/// #[tensor_lint::view(of = data)]
/// fn column_block(data: &mut [f32], start: usize, len: usize) -> &mut [f32] {
///     &mut data[start..start + len]
/// }
/// # fn main() {}
/// ```
#[proc_macro_attribute]
pub fn view(args: TokenStream, item: TokenStream) -> TokenStream {
    emit(
        "view",
        args.clone(),
        annotations::check_view(args.into(), item.clone().into()),
        item,
    )
}

/// Marks a function that overwrites one or more of its parameters in place.
///
/// Takes the names of the overwritten parameters, comma-separated, each at most once
/// (`self` names the receiver). At each call the analyzer checks `unsafe_inplace`: the
/// old value must not be needed afterwards, and the destination must not partially
/// overlap another operand.
///
/// ```
/// #[tensor_lint::inplace(dst)]
/// fn add_(dst: &mut [f32], src: &[f32]) {
///     for (d, s) in dst.iter_mut().zip(src) {
///         *d += s;
///     }
/// }
///
/// #[tensor_lint::inplace(a, b)]
/// fn swap_halves(a: &mut [f32], b: &mut [f32]) {
///     a.swap_with_slice(b);
/// }
/// # fn main() {}
/// ```
#[proc_macro_attribute]
pub fn inplace(args: TokenStream, item: TokenStream) -> TokenStream {
    emit(
        "inplace",
        args.clone(),
        annotations::check_inplace(args.into(), item.clone().into()),
        item,
    )
}

/// Silences the listed tensor-lint lints inside an item.
///
/// Works on any item: a function, an `impl` block, a module, a struct, a trait, a
/// constant. The lints are named as in `-A LINT`, with or without the `tensor_lint::`
/// prefix (`cargo tensor-lint --list` lists them). An unknown name is a compile
/// error that suggests the closest lint (`leek` → `leak`, `double-free` → `double_free`);
/// clippy's and rustc's lints belong in the built-in `#[allow(...)]`.
///
/// ```
/// #[tensor_lint::allow(false_sharing)]
/// struct Counters {
///     per_thread: [u64; 8],
/// }
///
/// #[tensor_lint::allow(tensor_lint::alias_race, unsafe_inplace)]
/// impl Counters {
///     fn bump(&mut self, thread: usize) {
///         self.per_thread[thread] += 1;
///     }
/// }
/// # fn main() {}
/// ```
///
/// For one statement use the comment `// tensor-lint: allow(LINT, …)` on the line before
/// it: attributes cannot go on statements in stable Rust.
#[proc_macro_attribute]
pub fn allow(args: TokenStream, item: TokenStream) -> TokenStream {
    emit(
        "allow",
        args.clone(),
        annotations::check_allow(args.into()),
        item,
    )
}
