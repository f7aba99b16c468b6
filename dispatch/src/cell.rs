//! A backend that the crate running it can switch for the whole process: one byte in that
//! crate's `static`, holding a position in [`Family::ALL`] written only from an
//! [`Available`] backend, so reading it back gives an `Available` again (the proof survives
//! the byte). Reading costs what [`Available::best`] costs (one byte load); what the cell
//! adds is [`BackendCell::set`], for code whose backend is not stored in an object (the SM9
//! field product): benchmarks, tests and `shangmi speed --backend` pick another one there.

use core::{marker::PhantomData, sync::atomic::AtomicU8, sync::atomic::Ordering};

use crate::{Available, Family};

/// An [`Available`] backend of family `B` in one byte, for a `static` in the crate that
/// runs the backend; [`BackendCell::get`] answers [`Available::best`] until
/// [`BackendCell::set`] picks another.
///
/// ```
/// use shangmi_dispatch::{Available, BackendCell, sm2_field::Backend};
///
/// static FIELD: BackendCell<Backend> = BackendCell::new();
/// assert_eq!(FIELD.get(), Available::best());
/// FIELD.set(Available::portable());
/// assert_eq!(FIELD.get().get(), Backend::Portable);
/// ```
pub struct BackendCell<B> {
    /// The backend's position in `B::ALL`; `u8::MAX` before the first `get` or `set`.
    position: AtomicU8,
    family: PhantomData<fn() -> B>,
}

impl<B: Family> BackendCell<B> {
    /// A cell that will hold the best backend (probed at the first [`BackendCell::get`]).
    pub const fn new() -> Self {
        BackendCell {
            position: AtomicU8::new(u8::MAX),
            family: PhantomData,
        }
    }

    /// The backend held: one relaxed load of the byte.
    #[inline(always)]
    pub fn get(&self) -> Available<B> {
        match B::at(self.position.load(Ordering::Relaxed)) {
            // Only `set` and `fill` write the position, each from an `Available` backend.
            Some(b) => Available(b),
            None => self.fill(),
        }
    }

    /// Holds `backend` from now on (in every thread: the cell is process-wide).
    pub fn set(&self, backend: Available<B>) {
        let position = B::ALL.iter().position(|&b| b == backend.get());
        // Every backend is in `ALL`, whose length the tables keep below 255.
        self.position
            .store(position.map_or(u8::MAX, |p| p as u8), Ordering::Relaxed);
    }

    /// The first `get`: the best backend, kept.
    #[cold]
    fn fill(&self) -> Available<B> {
        let best = Available::<B>::best();
        self.set(best);
        best
    }
}

impl<B: Family> Default for BackendCell<B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<B: Family> core::fmt::Debug for BackendCell<B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "BackendCell({:?})", self.get())
    }
}
