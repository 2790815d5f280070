//! The listener a [`RetryPlugin`](crate::RetryPlugin) tells: the user's, or
//! closures for its retries or give-ups (every other event still goes to the
//! user's).

use core::fmt;
use std::sync::Arc;

use rebound_runtime::{GiveUpEvent, PermitWaitEvent, RetryEvent, RetryListener, SuccessEvent};

/// The user's listener, or none (then nothing is cloned per operation).
#[derive(Clone, Default)]
pub(crate) struct SharedListener(Option<Arc<dyn RetryListener + Send + Sync>>);

impl SharedListener {
    pub(crate) fn new(listener: impl RetryListener + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(listener)))
    }
}

impl fmt::Debug for SharedListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let listener = if self.0.is_some() { "set" } else { "none" };
        f.debug_tuple("SharedListener").field(&listener).finish()
    }
}

impl RetryListener for SharedListener {
    fn on_retry(&self, event: &RetryEvent<'_>) {
        if let Some(listener) = &self.0 {
            listener.on_retry(event);
        }
    }

    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        if let Some(listener) = &self.0 {
            listener.on_give_up(event);
        }
    }

    fn on_success(&self, event: &SuccessEvent) {
        if let Some(listener) = &self.0 {
            listener.on_success(event);
        }
    }

    fn on_permit_wait(&self, event: &PermitWaitEvent) {
        if let Some(listener) = &self.0 {
            listener.on_permit_wait(event);
        }
    }
}

/// `hook` for retries; the give-ups go to the listener before it.
pub(crate) struct OnRetry<F> {
    pub(crate) hook: F,
    pub(crate) rest: SharedListener,
}

impl<F: Fn(&RetryEvent<'_>)> RetryListener for OnRetry<F> {
    fn on_retry(&self, event: &RetryEvent<'_>) {
        (self.hook)(event);
    }

    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        self.rest.on_give_up(event);
    }

    fn on_success(&self, event: &SuccessEvent) {
        self.rest.on_success(event);
    }

    fn on_permit_wait(&self, event: &PermitWaitEvent) {
        self.rest.on_permit_wait(event);
    }
}

/// `hook` for give-ups; the retries go to the listener before it.
pub(crate) struct OnGiveUp<G> {
    pub(crate) hook: G,
    pub(crate) rest: SharedListener,
}

impl<G: Fn(&GiveUpEvent<'_>)> RetryListener for OnGiveUp<G> {
    fn on_retry(&self, event: &RetryEvent<'_>) {
        self.rest.on_retry(event);
    }

    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        (self.hook)(event);
    }

    fn on_success(&self, event: &SuccessEvent) {
        self.rest.on_success(event);
    }

    fn on_permit_wait(&self, event: &PermitWaitEvent) {
        self.rest.on_permit_wait(event);
    }
}
