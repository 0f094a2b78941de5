//! The result: one row per measure, one column per backend (median of the runs, and how many),
//! a ratio of the TypeScript adapter to claude-acp, printed as a Markdown table and written as JSON.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

/// The backends, in column order.
pub const BACKENDS: [&str; 5] = [
    "stand-in alone",
    "claude-acp + stand-in",
    "claude alone",
    "claude-acp + claude",
    "TS adapter + claude",
];

pub fn median(samples: &[f64]) -> f64 {
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

struct Row {
    measure: String,
    unit: String,
    /// backend -> samples
    cells: BTreeMap<&'static str, Vec<f64>>,
}

#[derive(Default)]
pub struct Report {
    rows: Vec<Row>,
    notes: Vec<String>,
}

impl Report {
    /// Adds the samples of `measure` (in `unit`) for `backend`; rows keep first-seen order.
    pub fn add(&mut self, measure: &str, unit: &str, backend: &'static str, samples: Vec<f64>) {
        assert!(BACKENDS.contains(&backend), "unknown backend {backend}");
        let index = match self.rows.iter().position(|r| r.measure == measure) {
            Some(i) => i,
            None => {
                self.rows.push(Row {
                    measure: measure.to_owned(),
                    unit: unit.to_owned(),
                    cells: BTreeMap::new(),
                });
                self.rows.len() - 1
            }
        };
        self.rows[index].cells.insert(backend, samples);
    }

    pub fn note(&mut self, text: String) {
        self.notes.push(text);
    }

    pub fn print(&self) {
        let mut header = vec!["measure".to_owned(), "unit".to_owned()];
        header.extend(BACKENDS.iter().map(|b| b.to_string()));
        header.push("TS / claude-acp".to_owned());
        println!("| {} |", header.join(" | "));
        println!("|{}", " --- |".repeat(header.len()));
        for row in &self.rows {
            let mut cells = vec![row.measure.clone(), row.unit.clone()];
            for backend in BACKENDS {
                cells.push(match row.cells.get(backend) {
                    Some(s) => format!("{} ({})", figure(median(s)), s.len()),
                    None => "-".to_owned(),
                });
            }
            cells.push(match self.ratio(row) {
                Some(r) => format!("{r:.1}x"),
                None => "-".to_owned(),
            });
            println!("| {} |", cells.join(" | "));
        }
        for note in &self.notes {
            println!("\n{note}");
        }
    }

    fn ratio(&self, row: &Row) -> Option<f64> {
        let ts = median(row.cells.get("TS adapter + claude")?);
        let ours = median(row.cells.get("claude-acp + claude")?);
        (ours > 0.0).then(|| ts / ours)
    }

    /// Writes every sample, median and ratio as JSON to `path`.
    pub fn write_json(&self, path: &Path, machine: Value) {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|row| {
                let cells: serde_json::Map<String, Value> = row
                    .cells
                    .iter()
                    .map(|(backend, s)| {
                        let cell =
                            json!({"median": finite(median(s)), "runs": s.len(), "samples": s});
                        (backend.to_string(), cell)
                    })
                    .collect();
                json!({"measure": row.measure, "unit": row.unit, "backends": cells,
                       "ts_over_claude_acp": self.ratio(row)})
            })
            .collect();
        let doc = json!({"machine": machine, "rows": rows, "notes": self.notes});
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("create the JSON's directory");
        }
        std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap()).expect("write JSON");
    }
}

fn finite(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}

/// Three significant figures, at most three decimals.
fn figure(x: f64) -> String {
    if !x.is_finite() {
        return "-".to_owned();
    }
    let a = x.abs();
    let digits = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        3
    };
    format!("{x:.digits$}")
}
