//! Paginated operations under [`send`](crate::send): each page's request
//! retried by rebound, the next page asked for with the token the last one
//! gave.

use core::fmt;
use core::future::Future;

use aws_smithy_runtime_api::client::result::SdkError;
use aws_smithy_runtime_api::http::Response;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;
use aws_smithy_types::retry::ProvideErrorKind;
use rebound_runtime::time::{AsyncSleeper, Clock};
use rebound_runtime::{Retry, RetryListener, RetryStrategy};

use crate::send::send;

/// The pages of a paginated operation, each page's request retried by
/// `retry` as [`send`] retries one call: the route for paginated operations
/// on a client whose own retries are off (its `into_paginator()` would not
/// retry at all).
///
/// `page` sends the request for one page given the token to start from
/// (`None` for the first page): the operation's input builder with its
/// token set. `next_token` reads the token of the next page from a page's
/// output; `None` ends the pages, and so does a token equal to the one just
/// sent (as the SDK's paginators stop). A page whose request fails is
/// retried with the same token, so no page is lost or repeated; a failure
/// rebound gives up on is the last item.
///
/// # Examples
///
/// ```no_run
/// # async fn example(client: aws_sdk_dynamodb::Client) -> Result<(), aws_sdk_dynamodb::Error> {
/// use rebound_runtime::{Retry, StandardRetryStrategy};
///
/// let retry = Retry::new(StandardRetryStrategy::new());
/// let mut pages = rebound_smithy::paginate(
///     &retry,
///     |start| client.list_tables().set_exclusive_start_table_name(start).send(),
///     |page| page.last_evaluated_table_name().map(str::to_owned),
/// );
/// while let Some(page) = pages.next().await {
///     for table in page?.table_names() {
///         println!("{table}");
///     }
/// }
/// # Ok(())
/// # }
/// ```
pub fn paginate<'r, S, Sl, C, L, K, F, N, T, E, Fut>(
    retry: &'r Retry<S, Sl, C, L>,
    page: F,
    next_token: N,
) -> Pages<'r, S, Sl, C, L, K, F, N>
where
    F: FnMut(Option<K>) -> Fut,
    Fut: Future<Output = Result<T, SdkError<E, Response>>>,
    N: FnMut(&T) -> Option<K>,
{
    Pages {
        retry,
        page,
        next_token,
        token: None,
        done: false,
    }
}

/// The pages [`paginate`] gives, one at a time through
/// [`next`](Self::next).
#[must_use = "no page is requested until `next` is awaited"]
pub struct Pages<'r, S, Sl, C, L, K, F, N> {
    retry: &'r Retry<S, Sl, C, L>,
    page: F,
    next_token: N,
    /// The token the next page starts from.
    token: Option<K>,
    done: bool,
}

impl<S, Sl, C, L, K, F, N> Pages<'_, S, Sl, C, L, K, F, N>
where
    S: RetryStrategy,
    Sl: AsyncSleeper,
    C: Clock,
    L: RetryListener,
    K: Clone + PartialEq,
{
    /// The next page, its request retried; `None` after the last page or
    /// after a failure.
    ///
    /// # Errors
    ///
    /// The page's [`SdkError`], as [`send`] returns it; no page follows.
    pub async fn next<T, E, Fut>(&mut self) -> Option<Result<T, SdkError<E, Response>>>
    where
        F: FnMut(Option<K>) -> Fut,
        Fut: Future<Output = Result<T, SdkError<E, Response>>>,
        N: FnMut(&T) -> Option<K>,
        E: ProvideErrorKind + ProvideErrorMetadata,
    {
        if self.done {
            return None;
        }
        let token = &self.token;
        let page = &mut self.page;
        let output = match send(self.retry, || page(token.clone())).await {
            Ok(output) => output,
            Err(error) => {
                self.done = true;
                return Some(Err(error));
            }
        };
        let next = (self.next_token)(&output);
        self.done = next.is_none() || next == self.token;
        self.token = next;
        Some(Ok(output))
    }
}

impl<S, Sl, C, L, K, F, N> fmt::Debug for Pages<'_, S, Sl, C, L, K, F, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pages")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}
