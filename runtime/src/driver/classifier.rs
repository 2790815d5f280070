//! How the executor's loop reads a failure: as it classifies itself
//! ([`Native`]), or as a closure classifies it ([`ByClosure`],
//! [`Retry::run_classified`](crate::Retry::run_classified)).

use crate::vocabulary::FailureInfo;

/// How the executor's loop turns a failure of type `E` into the
/// [`FailureInfo`] a strategy reads: the failure itself, or what a classifier
/// closure says about it.
pub(crate) trait Classify<E> {
    /// Calls `then` with the classification of `failure`.
    fn with<R>(&self, failure: &E, then: impl FnOnce(&dyn FailureInfo) -> R) -> R;
}

/// Failures that classify themselves.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Native;

impl<E: FailureInfo> Classify<E> for Native {
    #[inline]
    fn with<R>(&self, failure: &E, then: impl FnOnce(&dyn FailureInfo) -> R) -> R {
        then(failure)
    }
}

/// Failures classified by a closure.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ByClosure<F>(pub(crate) F);

impl<E, F, C> Classify<E> for ByClosure<F>
where
    F: Fn(&E) -> C,
    C: FailureInfo,
{
    #[inline]
    fn with<R>(&self, failure: &E, then: impl FnOnce(&dyn FailureInfo) -> R) -> R {
        then(&(self.0)(failure))
    }
}
