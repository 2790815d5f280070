//! The progress bars on stderr (indicatif): the only place that reads real
//! time, and only to show it.

use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar of `len` steps named `name`, on stderr when it is a terminal
/// (hidden otherwise, so logs and pipes stay clean).
#[must_use]
pub(super) fn bar(name: &'static str, len: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(len),
        if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    let template = format!("{{msg}} [{{bar:40}}] {{pos}}/{{len}} {unit}, {{elapsed}}");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(name);
    bar
}

/// Runs `work` with a bar of `len` steps (`work` calls its argument after
/// each, from any thread), then clears the bar and says on stderr how long it took.
pub(super) fn with_bar<T>(
    name: &'static str,
    len: u64,
    unit: &str,
    work: impl FnOnce(&(dyn Fn() + Sync)) -> T,
) -> T {
    let bar = bar(name, len, unit);
    let started = Instant::now();
    let result = work(&|| bar.inc(1));
    bar.finish_and_clear();
    eprintln!(
        "{name}: {len} {unit}, {:.1} s",
        started.elapsed().as_secs_f64()
    );
    result
}
