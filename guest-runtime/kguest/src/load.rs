//! Plugins built from their config when the host loads the guest, which
//! may refuse a bad config there.

use crate::Plugin;

/// A plugin built from its config (`PluginConfig.GuestConfig`) when the
/// host loads the guest, instead of [`Plugin::new`] on the first hook call.
///
/// List `load` first in [`export!`](crate::export!): the guest then exports
/// `_start`, which KSW's host and kguest's run when they instantiate it (as
/// they run a TinyGo guest's `main`). An `Err` stops the load: the guest
/// writes the message to stderr and traps, so the host's error, and with it
/// the scheduler's refusal to start, reads `wasm: instantiate error:
/// <message>` on its first line. A plugin implements either `Load` or
/// [`Plugin`] (every `Load` type is a `Plugin`), and one that does not list
/// `load` pays nothing for it.
///
/// ```
/// use kguest::{Cycle, Filter, Load, Refusal, Status};
///
/// struct MaxNodes(u64);
///
/// impl Load for MaxNodes {
///     fn load(config: &'static [u8]) -> Result<Self, Refusal> {
///         let n = core::str::from_utf8(config).ok().and_then(kguest::text::parse_i64);
///         match n {
///             Some(n) if n > 0 => Ok(MaxNodes(n as u64)),
///             _ => Err("config: want a positive integer".into()),
///         }
///     }
/// }
///
/// impl Filter for MaxNodes {
///     fn filter<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
///         Status::success()
///     }
/// }
///
/// kguest::export!(MaxNodes => [load, filter]);
/// ```
pub trait Load: Sized + 'static {
    /// Reads `config` (empty when there is none); `Err` refuses the load
    /// with the message given.
    // A `Refusal` is ten `&str`s: 80 bytes in wasm32, returned once.
    #[allow(clippy::result_large_err)]
    fn load(config: &'static [u8]) -> Result<Self, Refusal>;

    /// As [`Plugin::new_cycle`].
    fn new_cycle(&mut self) {}
}

/// Built on first use in a host that did not run `_start`, and in native
/// tests that call `P::new()`: a refusal then traps (panics natively) with
/// its message. [`testing::TestHost::load`](crate::testing::TestHost::load)
/// returns it instead.
impl<T: Load> Plugin for T {
    #[inline]
    fn new() -> Self {
        match T::load(crate::config()) {
            Ok(p) => p,
            Err(e) => crate::sys::refuse(&e),
        }
    }

    #[inline]
    fn new_cycle(&mut self) {
        Load::new_cycle(self)
    }
}

/// Why a [`Load`] plugin refuses its config: one line for the operator,
/// made of up to [`Refusal::PARTS`] static pieces (pieces of the config
/// itself are static too) (a field name, what was
/// wanted, ...), written out as they are: nothing is copied or formatted.
/// Pieces past the last are dropped.
///
/// ```
/// let r = kguest::Refusal::new("config: ").then("weight").then(": want 0..=100");
/// assert_eq!(r.parts().collect::<String>(), "config: weight: want 0..=100");
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    parts: [&'static str; Refusal::PARTS],
    /// How many of `parts` are in use.
    len: usize,
}

impl Refusal {
    pub const PARTS: usize = 10;

    #[inline]
    pub const fn new(msg: &'static str) -> Self {
        let mut parts = [""; Refusal::PARTS];
        parts[0] = msg;
        Refusal { parts, len: 1 }
    }

    /// The pieces `parts`, in order (those past [`Refusal::PARTS`] are
    /// dropped): one copy, where a chain of [`then`](Self::then)s moves
    /// the whole value at each step.
    #[inline]
    pub fn of(parts: &[&'static str]) -> Self {
        let mut r = Refusal {
            parts: [""; Refusal::PARTS],
            len: parts.len().min(Self::PARTS),
        };
        for (dst, src) in r.parts.iter_mut().zip(parts) {
            *dst = src;
        }
        r
    }

    /// All [`Refusal::PARTS`] pieces at once (empty ones add nothing): the
    /// cheapest to build, as the array is written in place.
    #[inline]
    pub(crate) const fn all(parts: [&'static str; Refusal::PARTS]) -> Self {
        Refusal {
            parts,
            len: Refusal::PARTS,
        }
    }

    /// `first` before the pieces there are (the last one is dropped when
    /// there is no room), e.g. the plugin's context before a config error.
    #[inline]
    pub fn prefixed(self, first: &'static str) -> Self {
        let mut r = Refusal::new(first);
        for (dst, src) in r.parts.iter_mut().skip(1).zip(self.parts()) {
            *dst = src;
        }
        r.len = (self.len + 1).min(Self::PARTS);
        r
    }

    /// Appends `more` (dropped when there is no room).
    #[inline]
    pub fn then(mut self, more: &'static str) -> Self {
        if let Some(slot) = self.parts.get_mut(self.len) {
            *slot = more;
            self.len += 1;
        }
        self
    }

    /// The pieces, in order.
    pub fn parts(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.parts.iter().copied().take(self.len)
    }

    /// The pieces as the guest hands them to the host: all of them, the
    /// unused ones empty.
    #[cfg(target_arch = "wasm32")]
    #[inline]
    pub(crate) fn all_parts(&self) -> &[&'static str; Refusal::PARTS] {
        &self.parts
    }
}

impl From<&'static str> for Refusal {
    #[inline]
    fn from(s: &'static str) -> Self {
        Refusal::new(s)
    }
}

impl core::fmt::Debug for Refusal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Refusal(")?;
        for p in self.parts() {
            f.write_str(p)?;
        }
        f.write_str(")")
    }
}
