//! Rows users add to the model table in `tensor-lint.toml`, for APIs they cannot
//! annotate. The command line reads them from TOML; here they are plain data.

use super::{ReleaseHow, Sem};

/// The effect of a user model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// Returns newly allocated memory that must be released.
    Alloc,
    /// Releases argument `arg`.
    Free,
    /// Returns a view of argument `arg`.
    View,
    /// Overwrites argument `arg` in place.
    Inplace,
    /// Reads argument `arg`.
    Read,
    /// Writes argument `arg`.
    Write,
    /// Runs its closure argument on another thread, alongside the caller and the other
    /// closures handed to it until a `join` (a thread pool's `execute`).
    Spawn,
}

/// An extra API model, as users write it in `tensor-lint.toml`:
///
/// ```toml
/// [[models]]
/// path = "mypool::Pool::checkout"  # a path, matched by its trailing segments
/// effect = "alloc"                 # alloc | free | view | inplace | read | write | spawn
///
/// [[models]]
/// method = "checkin"               # or a method name, for any receiver
/// effect = "free"
/// arg = 1                          # which argument (receiver = 0 for methods);
///                                  # needed by free / view / inplace / read / write
/// ```
///
/// Exactly one of `path` and `method` is given.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ApiModel {
    pub path: Option<String>,
    pub method: Option<String>,
    pub effect: Effect,
    pub arg: Option<usize>,
}

impl ApiModel {
    /// Why this model cannot be used, if it cannot.
    pub fn validate(&self) -> Result<(), String> {
        match (&self.path, &self.method) {
            (Some(_), Some(_)) => return Err("give either `path` or `method`, not both".into()),
            (None, None) => return Err("a model needs `path` or `method`".into()),
            _ => {}
        }
        // `alloc` returns what it makes (or stores it through its `arg`) and `spawn`
        // runs its one closure: the argument is optional.
        if !matches!(self.effect, Effect::Alloc | Effect::Spawn) && self.arg.is_none() {
            return Err(format!("effect `{:?}` needs `arg`", self.effect).to_lowercase());
        }
        Ok(())
    }

    /// The semantics this row gives its calls.
    pub fn sem(&self) -> Sem {
        let arg = self.arg.unwrap_or(0);
        match self.effect {
            Effect::Alloc => match self.arg {
                Some(out) => Sem::OwedAllocInto(out),
                None => Sem::OwedAlloc,
            },
            Effect::Free => Sem::Release(ReleaseHow::Function, arg),
            Effect::View => Sem::ViewOfArg(arg),
            Effect::Inplace => Sem::InPlace(arg),
            Effect::Read => Sem::ReadArg(arg),
            Effect::Write => Sem::WriteArg(arg),
            Effect::Spawn => Sem::ThreadSpawn,
        }
    }
}
