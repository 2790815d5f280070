//! [`CloneRequest`]: how a [`RetryService`](super::RetryService) gets a copy
//! of a request for each attempt, and `ByClone`, the default.

/// Makes a copy of a request to send again: a retry needs a request of its
/// own, since sending one consumes it.
///
/// **A request that cannot be cloned (`None`) is sent once, with no
/// retries.** The strategy is still asked for the initial token and told
/// the outcome; a retry it grants is abandoned (with
/// [`StopReason::RequestNotClonable`](crate::StopReason::RequestNotClonable)).
///
/// Implemented by the layer's default (which clones: the request type must
/// be `Clone`, or the layer does not compile) and by
/// closures `Fn(&Req) -> Option<Req>`, for requests that can only sometimes
/// be cloned: an `http::Request<B>` is `Clone` only when its body is, and a
/// streaming body cannot be replayed at all (reqwest's `Request::try_clone`
/// returns an `Option` for that reason, and fits as
/// `|request: &reqwest::Request| request.try_clone()`).
///
/// # Examples
///
/// ```
/// use rebound_runtime::tower::CloneRequest;
///
/// // A request whose body is a one-shot stream cannot be sent again.
/// enum Body {
///     Bytes(Vec<u8>),
///     Stream,
/// }
/// let replayable = |body: &Body| match body {
///     Body::Bytes(bytes) => Some(Body::Bytes(bytes.clone())),
///     Body::Stream => None,
/// };
/// assert!(replayable.clone_request(&Body::Bytes(b"{}".to_vec())).is_some());
/// assert!(replayable.clone_request(&Body::Stream).is_none());
/// ```
#[diagnostic::on_unimplemented(
    message = "the retry layer cannot copy a `{Req}` to send it again",
    label = "`{Req}` is not `Clone`",
    note = "a retry needs a copy of the request: derive `Clone` for `{Req}`, or give the layer `.clone_request(|request: &{Req}| -> Option<{Req}> {{ .. }})`",
    note = "for `reqwest::Request`, use `RetryLayer::for_reqwest(strategy)` or `.clone_request(rebound::reqwest::TryClone)`"
)]
pub trait CloneRequest<Req> {
    /// A copy of `request` to send, or `None` when it cannot be copied.
    fn clone_request(&self, request: &Req) -> Option<Req>;
}

/// The layer's default [`CloneRequest`] policy: every request is copied
/// with [`Clone`], so every request can be retried. Not named by users: it is
/// the default type parameter of `RetryLayer`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ByClone;

impl<Req: Clone> CloneRequest<Req> for ByClone {
    #[inline]
    fn clone_request(&self, request: &Req) -> Option<Req> {
        Some(request.clone())
    }
}

impl<Req, F> CloneRequest<Req> for F
where
    F: Fn(&Req) -> Option<Req>,
{
    #[inline]
    fn clone_request(&self, request: &Req) -> Option<Req> {
        self(request)
    }
}
