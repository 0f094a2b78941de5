//! The printed result: rows of median and p95 per measure, the memory table, notes.

fn sorted(samples: &[f64]) -> Vec<f64> {
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

pub fn median(samples: &[f64]) -> f64 {
    percentile(samples, 0.5)
}

/// Nearest-rank percentile.
fn percentile(samples: &[f64], p: f64) -> f64 {
    let v = sorted(samples);
    let rank = ((p * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

#[derive(Default)]
pub struct Table {
    rows: Vec<[String; 5]>,
    memory: Vec<(String, (u64, u64))>,
    notes: Vec<String>,
}

impl Table {
    pub fn row(&mut self, what: &str, samples: &[f64], note: &str) {
        self.push(
            what,
            samples.len(),
            median(samples),
            percentile(samples, 0.95),
            note,
            2,
        );
    }

    pub fn row_us(&mut self, what: &str, samples: &[f64], note: &str) {
        self.push(
            what,
            samples.len(),
            median(samples),
            percentile(samples, 0.95),
            note,
            0,
        );
    }

    /// Medians subtract; the p95 column is p95(a) - p95(b), a rough bound, not a distribution.
    pub fn difference(&mut self, what: &str, a: &[f64], b: &[f64]) {
        let p95 = percentile(a, 0.95) - percentile(b, 0.95);
        self.push(
            what,
            a.len(),
            median(a) - median(b),
            p95,
            "p95 column: p95(a) - p95(b)",
            3,
        );
    }

    /// One figure without a distribution (a mean).
    pub fn single(&mut self, what: &str, n: usize, mean: f64, note: &str) {
        self.push(what, n, mean, f64::NAN, note, 0);
    }

    fn push(&mut self, what: &str, n: usize, median: f64, p95: f64, note: &str, digits: usize) {
        self.rows.push([
            what.to_owned(),
            n.to_string(),
            format!("{median:.digits$}"),
            if p95.is_nan() {
                "-".to_owned()
            } else {
                format!("{p95:.digits$}")
            },
            note.to_owned(),
        ]);
    }

    pub fn memory(&mut self, when: &str, kib: (u64, u64)) {
        self.memory.push((when.to_owned(), kib));
    }

    pub fn note(&mut self, text: String) {
        self.notes.push(text);
    }

    pub fn print(&self) {
        let header = ["measure", "N", "median", "p95", "note"].map(String::from);
        let widths: Vec<usize> = (0..5)
            .map(|c| {
                self.rows
                    .iter()
                    .chain([&header])
                    .map(|r| r[c].len())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |r: &[String; 5]| {
            println!(
                "| {:<w0$} | {:>w1$} | {:>w2$} | {:>w3$} | {:<w4$} |",
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2],
                w3 = widths[3],
                w4 = widths[4]
            )
        };
        line(&header);
        println!(
            "|{}|",
            widths
                .iter()
                .map(|w| "-".repeat(w + 2))
                .collect::<Vec<_>>()
                .join("|")
        );
        self.rows.iter().for_each(line);
        println!("\n| adapter memory | VmRSS MiB | VmHWM MiB |\n|---|---:|---:|");
        for (when, (rss, hwm)) in &self.memory {
            println!(
                "| {when} | {:.1} | {:.1} |",
                *rss as f64 / 1024.0,
                *hwm as f64 / 1024.0
            );
        }
        for note in &self.notes {
            println!("\n{note}");
        }
    }
}
