//! The listener made of the executor's `on_retry` and `on_give_up`
//! closures. Users never name these types: they are the default listener
//! type parameter of `Retry` and the tower layer.

use crate::driver::listen::{GiveUpEvent, RetryEvent, RetryListener};

/// The listener made of `Retry::on_retry` and
/// `Retry::on_give_up` closures; [`NoHook`] for
/// each not set. The default listener is `Hooks<NoHook, NoHook>`: nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hooks<R = NoHook, G = NoHook> {
    pub(super) on_retry: R,
    pub(super) on_give_up: G,
}

/// No closure: the event is ignored.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHook;

/// A closure called with an event `E`, or [`NoHook`].
pub trait Hook<E: ?Sized> {
    /// Calls it.
    fn call(&self, event: &E);
}

impl<E: ?Sized> Hook<E> for NoHook {
    #[inline]
    fn call(&self, _: &E) {}
}

impl<E: ?Sized, F: Fn(&E)> Hook<E> for F {
    #[inline]
    fn call(&self, event: &E) {
        self(event);
    }
}

impl<R, G> RetryListener for Hooks<R, G>
where
    R: for<'a> Hook<RetryEvent<'a>>,
    G: for<'a> Hook<GiveUpEvent<'a>>,
{
    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_>) {
        self.on_retry.call(event);
    }

    #[inline]
    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        self.on_give_up.call(event);
    }
}
