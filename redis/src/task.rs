//! A background task owned by a handle that may be shared: waited for once, by whichever
//! `close` comes first.

use std::sync::{Mutex, PoisonError};

use tokio::task::JoinHandle;

/// Takes the task out of `slot` and waits for it; `None` there (already waited for) returns at
/// once.
pub(crate) async fn join_once(slot: &Mutex<Option<JoinHandle<()>>>) {
    let task = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
    if let Some(task) = task {
        let _ = task.await;
    }
}
