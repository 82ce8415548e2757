//! What a lint is: its name, level, group and documentation, declared once in its own
//! file with [`declare_lint!`](crate::declare_lint), and listed once in `lib.rs` with
//! [`declare_lints!`](crate::declare_lints).

use crate::diagnostic::Level;

/// What kind of problem a lint finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Memory bugs: the program is wrong.
    Correctness,
    /// Wasted memory or time inside kernels.
    Perf,
}

impl Group {
    pub fn as_str(self) -> &'static str {
        match self {
            Group::Correctness => "correctness",
            Group::Perf => "perf",
        }
    }
}

/// Whether a lint has a pass behind it yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Active,
    /// Declared and documented, but no pass reports it yet: it never fires.
    Planned,
}

/// A lint's declaration.
#[derive(Debug)]
pub struct Lint {
    /// Short name, as written in `-D NAME` and `allow(NAME)`.
    pub name: &'static str,
    pub default_level: Level,
    /// When findings that are only possible (not proven) are shown one level lower.
    pub possible_is_warn: bool,
    pub group: Group,
    pub summary: &'static str,
    /// Markdown with the sections "What it does", "Why is this bad", "Example".
    pub docs: &'static str,
    pub status: Status,
}

impl Lint {
    /// `tensor_lint::NAME`, the code findings carry.
    pub fn code(&self) -> String {
        format!("tensor_lint::{}", self.name)
    }

    /// The docs with the leading spaces doc comments leave removed.
    pub fn explanation(&self) -> String {
        let mut out = String::new();
        for line in self.docs.lines() {
            out.push_str(line.strip_prefix(' ').unwrap_or(line));
            out.push('\n');
        }
        out.trim().to_string()
    }
}

/// Declares a lint with its docs, written as doc comments:
///
/// ```ignore
/// declare_lint! {
///     /// ### What it does
///     /// ...
///     pub LEAK = "leak", Warn, Correctness, "allocation not released on some path"
/// }
/// ```
#[macro_export]
macro_rules! declare_lint {
    (
        $(#[doc = $doc:literal])*
        pub $ident:ident = $name:literal, $level:ident, $group:ident, $summary:literal
        $(, possible_is_warn = $possible:literal)?
        $(, status = $status:ident)?
    ) => {
        $(#[doc = $doc])*
        pub static $ident: $crate::lint::Lint = $crate::lint::Lint {
            name: $name,
            default_level: $crate::diagnostic::Level::$level,
            possible_is_warn: $crate::declare_lint!(@or $($possible)?, false),
            group: $crate::lint::Group::$group,
            summary: $summary,
            docs: concat!($($doc, "\n"),*),
            status: $crate::declare_lint!(@status $($status)?),
        };
    };
    (@or $value:literal, $default:literal) => { $value };
    (@or , $default:literal) => { $default };
    (@status $status:ident) => { $crate::lint::Status::$status };
    (@status) => { $crate::lint::Status::Active };
}

/// Declares the lints of the crate, each as `module::STATIC`: the module is the lint's
/// file and the static its [`declare_lint!`](crate::declare_lint). This one list is the
/// only place a lint is registered; the registry, `--list`, the book, the README table
/// and the annotation crate's names are made from it.
#[macro_export]
macro_rules! declare_lints {
    ($($module:ident::$lint:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// Every lint, in the order `--list` shows them.
        pub(crate) static LINTS: &[&$crate::lint::Lint] = &[$(&$module::$lint),*];

        /// The pass of each lint in [`LINTS`], at the same index.
        pub(crate) static PASSES: &[Option<$crate::context::CheckFn>] = &[$($module::PASS),*];
    };
}
