//! [`Timeline`]: what happened in each time bin of a run, per table.
//!
//! Every metric of the experiments is a sum over bins (a window of the run),
//! so one record serves the time series of the plots and the windows of the
//! tables (during an outage, after start-up, ...).

use std::ops::AddAssign;

/// Counts of one bin (and of one table of the service).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Bin {
    /// Logical requests that arrived.
    pub arrivals: u64,
    /// Attempts sent (first attempts and retries).
    pub attempts: u64,
    /// Of [`attempts`](Self::attempts), the retries (a logical request's
    /// second attempt and later).
    pub retries: u64,
    /// Retries granted: failed attempts the strategy gave a retry token,
    /// counted as the answer reached the client (when `Retry::on_retry`
    /// hooks run), however long the retry then waits.
    pub granted: u64,
    /// Attempts that succeeded, counted when the client got the answer: each
    /// is one logical request done (goodput).
    pub successes: u64,
    /// Attempts the service throttled (429 `ThrottlingException`, 503
    /// `SlowDown`).
    pub throttled: u64,
    /// Attempts that failed otherwise (503 during an outage).
    pub failed: u64,
    /// Logical requests given up: by the strategy (attempts or quota
    /// exhausted, not retryable) or because the next wait would overrun the
    /// request's time budget.
    pub gave_up: u64,
    /// Of [`gave_up`](Self::gave_up), those stopped by the time budget.
    pub timed_out: u64,
    /// The client-side send rate limit at the end of the bin, summed over
    /// the strategies serving the table (`None` while every limiter is off
    /// or the strategy has none).
    pub send_rate: Option<f64>,
}

impl AddAssign<&Bin> for Bin {
    /// Adds the counts; the send rate is not a count and is left as is.
    fn add_assign(&mut self, other: &Bin) {
        self.arrivals += other.arrivals;
        self.attempts += other.attempts;
        self.retries += other.retries;
        self.granted += other.granted;
        self.successes += other.successes;
        self.throttled += other.throttled;
        self.failed += other.failed;
        self.gave_up += other.gave_up;
        self.timed_out += other.timed_out;
    }
}

/// The bins of one run: `bins[table][i]` covers
/// `[i * width, (i + 1) * width)` seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    width: f64,
    bins: Vec<Vec<Bin>>,
}

impl Timeline {
    /// Empty bins of `width` seconds covering `[0, end)` for `tables`
    /// tables. A width that is not a positive number is taken as 1 s.
    #[must_use]
    pub fn new(tables: usize, width: f64, end: f64) -> Self {
        let width = if width > 0.0 && width.is_finite() {
            width
        } else {
            1.0
        };
        let count = if end > 0.0 && end.is_finite() {
            (end / width).ceil() as usize
        } else {
            0
        };
        Self {
            width,
            bins: vec![vec![Bin::default(); count]; tables],
        }
    }

    /// The bin width, seconds.
    #[must_use]
    pub fn width(&self) -> f64 {
        self.width
    }

    /// How many tables.
    #[must_use]
    pub fn tables(&self) -> usize {
        self.bins.len()
    }

    /// The bins of `table` (empty for an unknown table).
    #[must_use]
    pub fn bins(&self, table: usize) -> &[Bin] {
        self.bins.get(table).map_or(&[], Vec::as_slice)
    }

    /// The bin of `table` holding time `at`, if the run covers it.
    pub fn at(&mut self, table: usize, at: f64) -> Option<&mut Bin> {
        // Also refuses NaN.
        if at.is_nan() || at < 0.0 {
            return None;
        }
        let index = (at / self.width) as usize;
        self.bins.get_mut(table)?.get_mut(index)
    }

    /// The bins of `table` whose start lies in `[from, to)` seconds, added
    /// up.
    #[must_use]
    pub fn window(&self, table: usize, from: f64, to: f64) -> Bin {
        let mut sum = Bin::default();
        for (index, bin) in self.bins(table).iter().enumerate() {
            let start = index as f64 * self.width;
            if start >= from && start < to {
                sum += bin;
            }
        }
        sum
    }

    /// [`window`](Self::window) added up over every table.
    #[must_use]
    pub fn window_all(&self, from: f64, to: f64) -> Bin {
        let mut sum = Bin::default();
        for table in 0..self.tables() {
            sum += &self.window(table, from, to);
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_add_up_the_bins_they_start_in() {
        let mut timeline = Timeline::new(2, 0.5, 2.0);
        for (table, at, n) in [(0, 0.2, 1), (0, 0.7, 2), (1, 1.9, 4)] {
            if let Some(bin) = timeline.at(table, at) {
                bin.arrivals += n;
            }
        }
        assert!(timeline.at(1, 2.0).is_none());
        assert!(timeline.at(1, f64::NAN).is_none());
        assert_eq!(timeline.window(0, 0.0, 1.0).arrivals, 3);
        assert_eq!(timeline.window(0, 0.5, 1.0).arrivals, 2);
        assert_eq!(timeline.window_all(0.0, 2.0).arrivals, 7);
    }
}
