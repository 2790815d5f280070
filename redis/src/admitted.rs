//! [`AdmittedMeter`]: the rate at which the service admitted one process's requests over its
//! last period of traffic, read from its limiter's counters by the fleet limiter's task.

use std::collections::VecDeque;

use rebound_runtime::rate_limiter::RateReading;

/// What one read of the limiter added since the one before.
#[derive(Debug, Clone, Copy)]
struct Step {
    /// Seconds since the read before.
    secs: f64,
    /// Responses that were not throttles.
    admitted: u64,
    /// Responses, throttles included.
    responses: u64,
    /// Whether any response came back (admitted or throttled).
    active: bool,
    /// Whether any came back throttled.
    throttled: bool,
    /// Whether the read before heard responses too: the whole step was busy.
    full: bool,
}

/// The rate the service admitted a process's requests at, over the last few reads of its
/// limiter (one rate period of them): the successes counted in the reads that heard any
/// response, over the time those reads span.
///
/// It does not lag as the limiter's own smoothed meter does, which also counts throttled
/// responses: at a throttle, the members' admitted rates add up to what the service admits,
/// its capacity. Reads that heard nothing (before a process's first request, or while it is
/// idle) are left out, so a process that has just started is not taken for a slow one.
///
/// ```
/// use rebound_redis::AdmittedMeter;
/// use rebound_runtime::AdaptiveRetryStrategy;
/// use rebound_runtime::rate_limiter::RateControl;
///
/// let strategy = AdaptiveRetryStrategy::new();
/// let mut meter = AdmittedMeter::new(4);
/// meter.read(&strategy.reading(), 0.0);
/// assert_eq!(meter.rate(), 0.0); // nothing heard yet
/// ```
#[derive(Debug, Clone)]
pub struct AdmittedMeter {
    steps: VecDeque<Step>,
    span: usize,
    /// The last read: when, its successes and its responses.
    last: Option<(f64, u64, u64)>,
}

impl AdmittedMeter {
    /// A meter over the last `span` reads (at least one).
    #[must_use]
    pub fn new(span: usize) -> Self {
        let span = span.max(1);
        Self {
            steps: VecDeque::with_capacity(span),
            span,
            last: None,
        }
    }

    /// Takes the limiter's `reading` at `now` seconds (any fixed origin; a time before the
    /// last read's counts as the last read's).
    pub fn read(&mut self, reading: &RateReading, now: f64) {
        let responses = reading.successes.saturating_add(reading.throttles);
        if let Some((at, successes, heard)) = self.last {
            if self.steps.len() == self.span {
                self.steps.pop_front();
            }
            let admitted = reading.successes.saturating_sub(successes);
            let active = responses > heard;
            self.steps.push_back(Step {
                secs: (now - at).max(0.0),
                admitted,
                responses: responses.saturating_sub(heard),
                active,
                throttled: responses - heard > admitted,
                full: self.steps.back().is_some_and(|step| step.active),
            });
        }
        let now = self.last.map_or(now, |(at, ..)| now.max(at));
        self.last = Some((now, reading.successes, responses));
    }

    /// Requests admitted per second: over the steps that heard throttles if any did (the
    /// service was saturated then: what it admitted is this process's part of its capacity),
    /// else over the steps that heard responses; of those, only the steps that were busy from
    /// their start if any were (a step in which traffic started was busy for part of it). 0
    /// when no step heard a response.
    #[must_use]
    pub fn rate(&self) -> f64 {
        let active = || self.steps.iter().filter(|step| step.active);
        let throttled = active().any(|step| step.throttled);
        let chosen = || active().filter(move |step| step.throttled || !throttled);
        let full = chosen().any(|step| step.full);
        let (admitted, secs) = chosen()
            .filter(|step| step.full || !full)
            .fold((0u64, 0.0), |(n, t), step| {
                (n + step.admitted, t + step.secs)
            });
        if secs > 0.0 {
            admitted as f64 / secs
        } else {
            0.0
        }
    }

    /// Responses per second, throttles included, over all the steps (idle ones too): what the
    /// process sent, for its [`Demand`](crate::Demand). 0 before the second read.
    #[must_use]
    pub fn sent(&self) -> f64 {
        let (responses, secs) = self.steps.iter().fold((0u64, 0.0), |(n, t), step| {
            (n + step.responses, t + step.secs)
        });
        if secs > 0.0 {
            responses as f64 / secs
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use rebound_runtime::AdaptiveRetryStrategy;
    use rebound_runtime::rate_limiter::RateControl;

    use super::*;

    fn reading(successes: u64, throttles: u64) -> RateReading {
        let mut reading = AdaptiveRetryStrategy::new().reading();
        reading.successes = successes;
        reading.throttles = throttles;
        reading
    }

    #[test]
    fn counts_only_the_reads_that_heard_responses() {
        let mut meter = AdmittedMeter::new(4);
        meter.read(&reading(0, 0), 0.0);
        // Idle for a second, then 10 admitted and 5 throttled in each quarter second.
        meter.read(&reading(0, 0), 1.0);
        assert_eq!(meter.rate(), 0.0);
        meter.read(&reading(10, 5), 1.25);
        assert!((meter.rate() - 40.0).abs() < 1e-9, "{}", meter.rate());
        meter.read(&reading(20, 10), 1.5);
        assert!((meter.rate() - 40.0).abs() < 1e-9, "{}", meter.rate());
    }

    #[test]
    fn sent_counts_every_response_over_every_read() {
        let mut meter = AdmittedMeter::new(4);
        meter.read(&reading(0, 0), 0.0);
        assert_eq!(meter.sent(), 0.0);
        // Idle for half a second, then 10 admitted and 5 throttled in half a second.
        meter.read(&reading(0, 0), 0.5);
        meter.read(&reading(10, 5), 1.0);
        assert!((meter.sent() - 15.0).abs() < 1e-9, "{}", meter.sent());
    }

    #[test]
    fn spans_the_last_reads_only() {
        let mut meter = AdmittedMeter::new(2);
        meter.read(&reading(0, 0), 0.0);
        meter.read(&reading(100, 0), 1.0);
        meter.read(&reading(110, 0), 2.0);
        meter.read(&reading(120, 0), 3.0);
        assert!((meter.rate() - 10.0).abs() < 1e-9, "{}", meter.rate());
    }

    #[test]
    fn a_clock_that_steps_back_adds_no_time() {
        let mut meter = AdmittedMeter::new(4);
        meter.read(&reading(0, 0), 5.0);
        meter.read(&reading(10, 0), 4.0);
        assert_eq!(meter.rate(), 0.0);
        // The step back was the first busy step (traffic started in it), so the next
        // second's alone counts.
        meter.read(&reading(20, 0), 6.0);
        assert!((meter.rate() - 10.0).abs() < 1e-9, "{}", meter.rate());
    }

    #[test]
    fn throttled_steps_measure_the_capacity() {
        let mut meter = AdmittedMeter::new(4);
        meter.read(&reading(0, 0), 0.0);
        // Admitted 80/s with no throttle, then 40/s and 40/s throttled (the capacity halved).
        meter.read(&reading(20, 0), 0.25);
        meter.read(&reading(40, 0), 0.5);
        meter.read(&reading(50, 10), 0.75);
        assert!((meter.rate() - 40.0).abs() < 1e-9, "{}", meter.rate());
    }
}
