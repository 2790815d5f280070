//! One operation's rebound request, kept in the operation's config bag (put
//! there by [`StartRequest`], the plugin's interceptor): the
//! orchestrator's hooks see the bag only by reference, so the request sits
//! behind a mutex. When the operation ends or is dropped, the bag drops it,
//! and a request that has not ended hands its token back as abandoned.

use core::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::BeforeSerializationInterceptorContextRef;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::{ConfigBag, Storable, StoreReplace};
use aws_smithy_types::retry::RetryConfig;
use rebound_runtime::driver::{Attempt, RequestLoop};
use rebound_runtime::time::SystemClock;

use crate::listener::SharedListener;

/// The request loop of a strategy `S` as the plugin drives it.
pub(crate) type Loop<S> = RequestLoop<Arc<S>, SystemClock, SharedListener>;

/// Where an operation's request is between the orchestrator's hooks.
pub(crate) enum State<S> {
    /// Not started: the first hook starts it.
    Idle,
    /// Between attempts (a backoff or a permit wait is being slept).
    Pending(Loop<S>),
    /// An attempt is being sent.
    Sending(Attempt<Arc<S>, SystemClock, SharedListener>),
    /// The request ended.
    Ended,
}

/// The config bag's entry: one per operation.
pub(crate) struct OperationRetry<S> {
    state: Mutex<State<S>>,
}

impl<S> OperationRetry<S> {
    pub(crate) const fn new() -> Self {
        Self {
            state: Mutex::new(State::Idle),
        }
    }

    /// The state, to take out and put back (a panicking hook poisons
    /// nothing that matters: the state is whole between statements).
    pub(crate) fn lock(&self) -> MutexGuard<'_, State<S>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<S: Send + Sync + 'static> Storable for OperationRetry<S> {
    type Storer = StoreReplace<Self>;
}

impl<S> fmt::Debug for OperationRetry<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.state.try_lock().as_deref() {
            Ok(State::Idle) => "idle",
            Ok(State::Pending(_)) => "between attempts",
            Ok(State::Sending(_)) => "sending",
            Ok(State::Ended) => "ended",
            Err(_) => "in use",
        };
        f.debug_struct("OperationRetry")
            .field("state", &state)
            .finish()
    }
}

/// Puts a fresh rebound request in each operation's config bag, and the
/// plugin's retry configuration back on top when an operation's own
/// (a `config_override`) replaced it: the attempt header's maximum is then
/// still the one rebound enforces.
pub(crate) struct StartRequest<S> {
    config: RetryConfig,
    strategy: core::marker::PhantomData<fn() -> S>,
}

impl<S> StartRequest<S> {
    pub(crate) const fn new(config: RetryConfig) -> Self {
        Self {
            config,
            strategy: core::marker::PhantomData,
        }
    }
}

impl<S> fmt::Debug for StartRequest<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StartRequest")
    }
}

impl<S: Send + Sync + 'static> Intercept for StartRequest<S> {
    fn name(&self) -> &'static str {
        "rebound::StartRequest"
    }

    // Not `read_before_execution`: a client's interceptors run that hook
    // before the operation's own configuration (an override) is applied.
    fn read_before_serialization(
        &self,
        _context: &BeforeSerializationInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        cfg.interceptor_state()
            .store_put(OperationRetry::<S>::new());
        if cfg.load::<RetryConfig>() != Some(&self.config) {
            cfg.interceptor_state().store_put(self.config.clone());
        }
        Ok(())
    }
}
