//! [`Slept`]: virtual waits for the end-to-end tests.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rebound::time::AsyncSleeper;

/// An async sleeper that records each wait and returns at once.
#[derive(Debug, Clone, Default)]
pub struct Slept(Arc<Mutex<Vec<Duration>>>);

impl Slept {
    /// The waits asked for so far.
    pub fn waits(&self) -> Vec<Duration> {
        self.0.lock().unwrap().clone()
    }
}

impl AsyncSleeper for Slept {
    type Sleep = std::future::Ready<()>;

    fn sleep(&self, delay: Duration) -> Self::Sleep {
        self.0.lock().unwrap().push(delay);
        std::future::ready(())
    }
}
