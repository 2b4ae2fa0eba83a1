//! The graph benchmark's results and the table `chevron bench --graphs` prints.

use std::fmt;

use super::graphs::GraphBenchOptions;
use chevron::AutoGraphStats;

/// How the repetition's launches were submitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum GraphVariant {
    /// One checked launch per kernel.
    Eager,
    /// One launch of a recorded [`chevron::Graph`].
    Explicit,
    /// Eager calls on a stream with automatic replay, same arguments every repetition.
    Automatic,
    /// As `Automatic`, with one argument of every launch changing every repetition.
    AutomaticChanging,
    /// A graph built and launched through the raw driver.
    RawCuda,
}

impl GraphVariant {
    /// How the table names the variant.
    pub fn as_str(self) -> &'static str {
        match self {
            GraphVariant::Eager => "eager launches",
            GraphVariant::Explicit => "explicit graph",
            GraphVariant::Automatic => "automatic replay",
            GraphVariant::AutomaticChanging => "automatic, args change",
            GraphVariant::RawCuda => "raw CUDA graph",
        }
    }
}

/// The medians of one variant, per kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphFigure {
    /// The variant.
    pub variant: GraphVariant,
    /// Host time to submit a repetition, per kernel, in nanoseconds.
    pub submit_ns: f64,
    /// Submission plus stream synchronization, per kernel, in nanoseconds.
    pub complete_ns: f64,
}

/// Everything one graph benchmark run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphReport {
    /// The device, e.g. `cuda:0 (NVIDIA H200)`.
    pub device: String,
    /// The sizes used.
    pub options: GraphBenchOptions,
    /// One figure per variant measured.
    pub figures: Vec<GraphFigure>,
    /// [`chevron::Graph::set_args`] per node, in nanoseconds.
    pub update_ns: f64,
    /// `cuGraphExecKernelNodeSetParams` per node, in nanoseconds (CUDA only).
    pub raw_update_ns: Option<f64>,
    /// Automatic replay's host time per held launch (checks, matching, copying the values),
    /// in nanoseconds.
    pub matching_ns: f64,
    /// What automatic replay did on its stream (same-argument variant).
    pub auto_stats: AutoGraphStats,
}

impl GraphReport {
    /// The figure of one variant.
    pub fn figure(&self, variant: GraphVariant) -> Option<&GraphFigure> {
        self.figures.iter().find(|f| f.variant == variant)
    }
}

impl GraphReport {
    /// One report of the medians of several runs' figures (the first run's device, sizes and
    /// statistics); `None` for no runs.
    pub fn median_of(runs: &[GraphReport]) -> Option<GraphReport> {
        let first = runs.first()?;
        let median_by = |f: &dyn Fn(&GraphReport) -> Option<f64>| {
            let mut values: Vec<f64> = runs.iter().filter_map(f).collect();
            super::median(&mut values)
        };
        let figures = first
            .figures
            .iter()
            .map(|fig| GraphFigure {
                variant: fig.variant,
                submit_ns: median_by(&|r| r.figure(fig.variant).map(|f| f.submit_ns)),
                complete_ns: median_by(&|r| r.figure(fig.variant).map(|f| f.complete_ns)),
            })
            .collect();
        Some(GraphReport {
            device: first.device.clone(),
            options: first.options,
            figures,
            update_ns: median_by(&|r| Some(r.update_ns)),
            raw_update_ns: first.raw_update_ns.map(|_| median_by(&|r| r.raw_update_ns)),
            matching_ns: median_by(&|r| Some(r.matching_ns)),
            auto_stats: first.auto_stats,
        })
    }
}

impl fmt::Display for GraphReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "graph replay on {} ({} `{}` kernels x {} repetitions, medians per kernel)",
            self.device,
            self.options.kernels,
            self.options.kernel.name(),
            self.options.repetitions
        )?;
        writeln!(
            f,
            "{:<24} {:>10} {:>12} {:>9} {:>9}",
            "variant", "submit ns", "complete ns", "vs eager", "vs raw"
        )?;
        let eager = self.figure(GraphVariant::Eager).map(|e| e.complete_ns);
        let raw = self.figure(GraphVariant::RawCuda).map(|r| r.complete_ns);
        let ratio = |base: Option<f64>, x: f64, invert: bool| match base {
            Some(b) if invert => format!("{:.2}x", b / x),
            Some(b) => format!("{:.3}", x / b),
            None => "-".into(),
        };
        for fig in &self.figures {
            writeln!(
                f,
                "{:<24} {:>10.0} {:>12.0} {:>9} {:>9}",
                fig.variant.as_str(),
                fig.submit_ns,
                fig.complete_ns,
                ratio(eager, fig.complete_ns, true),
                ratio(raw, fig.complete_ns, false)
            )?;
        }
        writeln!(
            f,
            "argument update, Graph::set_args: {:.0} ns per node",
            self.update_ns
        )?;
        writeln!(
            f,
            "automatic replay, host time per held launch: {:.0} ns",
            self.matching_ns
        )?;
        if let Some(raw) = self.raw_update_ns {
            writeln!(
                f,
                "argument update, raw cuGraphExecKernelNodeSetParams: {raw:.0} ns per node"
            )?;
        } else {
            writeln!(f, "(no raw CUDA graph on this device)")?;
        }
        let s = &self.auto_stats;
        writeln!(
            f,
            "automatic replay: {} instantiation(s), {} replays, {} launches replayed, {} eager, \
             {} node updates",
            s.instantiations, s.replays, s.replayed_launches, s.eager_launches, s.node_updates
        )
    }
}
