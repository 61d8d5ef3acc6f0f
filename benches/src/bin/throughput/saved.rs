//! A saved `--json` document read back, so plots can be drawn from an earlier run.

use serde::Deserialize;

/// The parts of the JSON document the plots use.
#[derive(Debug, Deserialize)]
pub(crate) struct Saved {
    pub machine: SavedMachine,
    #[serde(default)]
    pub throughput: Vec<SavedRow>,
    #[serde(default)]
    pub comparisons: Vec<SavedComparison>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct SavedMachine {
    pub cpu: String,
    pub cores: usize,
    pub backend: String,
}

/// One measurement as `measurement::Measurement` writes it.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct SavedMeasurement {
    pub engine: String,
    pub log_message_rows: u32,
    pub lanes: usize,
    pub log_inv_rate: u32,
    pub workers: usize,
    pub buffers: String,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub gib_s: f64,
}

impl SavedMeasurement {
    /// log2 of the witness words (fractional when the lane count is not a power of two).
    pub(crate) fn log_words(&self) -> f64 {
        f64::from(self.log_message_rows) + (self.lanes as f64).log2()
    }

    /// GiB/s at another time for the same witness (a bound, or the spread's ends).
    pub(crate) fn gib_s_at(&self, ms: f64) -> f64 {
        self.gib_s * self.median_ms / ms
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct SavedRow {
    pub commit: SavedMeasurement,
    pub encode: SavedMeasurement,
    /// The floors (absent from documents saved before they were measured).
    #[serde(default)]
    pub encode_compute_ms: Option<f64>,
    #[serde(default)]
    pub commit_compute_ms: Option<f64>,
    #[serde(default)]
    pub traffic_ms: Option<f64>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct SavedComparison {
    pub op: String,
    pub workers: usize,
    pub results: Vec<SavedMeasurement>,
}

impl Saved {
    /// Reads a document written by `--json` or `--save`.
    ///
    /// # Errors
    /// A file that cannot be read or is not such a document.
    pub(crate) fn read(path: &std::path::Path) -> Result<Self, String> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        serde_json::from_str(&text)
            .map_err(|e| format!("{} is not a `throughput --json` document: {e}", path.display()))
    }

    /// `Intel(R) Xeon(R) Processor, 2 cores, avx512`.
    pub(crate) fn machine_line(&self) -> String {
        format!(
            "{}, {} core(s), backend {}",
            self.machine.cpu, self.machine.cores, self.machine.backend
        )
    }
}

/// The public name of an engine of the comparison, as the plots print it.
pub(crate) fn public_name(engine: &str) -> &str {
    match engine {
        "ntt-engine" => "ntt-engine",
        "p3-binary-dft" => "Plonky3 p3-binary-dft",
        "rayon-layers" => "rayon, one sweep per layer",
        "rayon+blake3" => "rayon layers + BLAKE3",
        other => other,
    }
}
