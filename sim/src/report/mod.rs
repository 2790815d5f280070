//! Tables (Markdown) and CSV for the experiments, one file each; the
//! formatting they share is here.

pub mod capacity;
pub mod fleet;
pub mod fleet_processes;
pub mod fleet_rate;
mod occ;
pub mod outage;

pub use occ::{CSV_HEADER, csv, table};

/// A Markdown table: `header` names the columns, `right` says which are
/// right-aligned (numbers), one line per row.
#[must_use]
pub fn markdown(header: &[&str], right: &[bool], rows: &[Vec<String>]) -> String {
    let mut out = format!("| {} |\n|", header.join(" | "));
    for (index, _) in header.iter().enumerate() {
        out.push_str(if right.get(index).copied().unwrap_or(false) {
            "---:|"
        } else {
            "---|"
        });
    }
    out.push('\n');
    for row in rows {
        out.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    out
}

/// CSV: `header`, then one line per row (fields must not hold commas).
#[must_use]
pub fn csv_lines(header: &str, rows: &[Vec<String>]) -> String {
    let mut out = String::from(header);
    out.push('\n');
    for row in rows {
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

/// A share as a percentage with one decimal: `0.9567` → `95.7%`.
#[must_use]
pub fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// A duration in seconds, or `never` (tables) for `None`.
#[must_use]
pub fn seconds(value: Option<f64>) -> String {
    value.map_or_else(|| "never".to_owned(), |s| format!("{s:.0} s"))
}

/// An optional number for CSV: empty for `None`, else `decimals` decimals.
#[must_use]
pub fn csv_number(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(String::new, |v| format!("{v:.decimals$}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_aligns_and_csv_joins() {
        let rows = vec![vec!["a".to_owned(), "1".to_owned()]];
        assert_eq!(
            markdown(&["name", "n"], &[false, true], &rows),
            "| name | n |\n|---|---:|\n| a | 1 |\n"
        );
        assert_eq!(csv_lines("name,n", &rows), "name,n\na,1\n");
        assert_eq!(percent(0.9567), "95.7%");
        assert_eq!(seconds(None), "never");
        assert_eq!(csv_number(Some(1.0 / 3.0), 2), "0.33");
    }
}
