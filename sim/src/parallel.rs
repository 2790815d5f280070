//! Runs an experiment's jobs on every core.
//!
//! Each job is one seeded run in virtual time, so the results do not depend
//! on which thread ran it; they come back in the jobs' order.

use rayon::iter::{IntoParallelRefIterator as _, ParallelIterator as _};

/// `run` over every job on rayon's pool, calling `progress` after each.
pub(crate) fn run_jobs<J: Sync, R: Send>(
    jobs: &[J],
    run: impl Fn(&J) -> R + Sync,
    progress: impl Fn() + Sync,
) -> Vec<R> {
    jobs.par_iter()
        .map(|job| {
            let result = run(job);
            progress();
            result
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn results_keep_the_jobs_order_and_progress_counts_each() {
        let done = AtomicUsize::new(0);
        let jobs: Vec<u64> = (0..100).collect();
        let squares = run_jobs(
            &jobs,
            |&n| n * n,
            || {
                done.fetch_add(1, Ordering::Relaxed);
            },
        );
        assert_eq!(squares, (0..100).map(|n| n * n).collect::<Vec<_>>());
        assert_eq!(done.load(Ordering::Relaxed), 100);
    }
}
