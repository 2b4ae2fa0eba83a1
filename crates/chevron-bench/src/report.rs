//! The launch benchmark's results: figures, ratios to the raw driver, and the table printed by
//! `chevron bench`.

use std::fmt;

use super::BenchOptions;

/// How a launch was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Variant {
    /// `cuLaunchKernel` straight through the driver table.
    Raw,
    /// [`chevron::Kernel::launch`]: checks arguments and configuration.
    Checked,
    /// [`chevron::Kernel::launch_unchecked`].
    Unchecked,
}

impl Variant {
    /// How the table names the variant.
    pub fn as_str(self) -> &'static str {
        match self {
            Variant::Raw => "raw cuLaunchKernel",
            Variant::Checked => "chevron checked",
            Variant::Unchecked => "chevron unchecked",
        }
    }
}

/// Targets as (variant, enqueue ratio, launch+sync ratio) upper bounds relative to raw.
pub const TARGETS: [(Variant, f64, f64); 2] = [
    (Variant::Checked, 1.03, 1.02),
    (Variant::Unchecked, 1.01, 1.02),
];

/// One measured (kernel, variant).
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// `empty` or `axpy (4 args)`.
    pub kernel: &'static str,
    /// How the launches were made.
    pub variant: Variant,
    /// Median host time per launch in bursts, in nanoseconds.
    pub enqueue_ns: f64,
    /// Median launch + synchronize time, in nanoseconds.
    pub round_trip_ns: f64,
    /// `enqueue_ns` over the raw figure of the same kernel (`None` without a raw baseline).
    pub enqueue_ratio: Option<f64>,
    /// `round_trip_ns` over the raw figure of the same kernel.
    pub round_trip_ratio: Option<f64>,
}

impl Figure {
    /// Whether the figure meets its target (`None` for raw figures and without a baseline).
    pub fn meets_target(&self) -> Option<bool> {
        let (_, enqueue, round_trip) = TARGETS.iter().find(|(v, _, _)| *v == self.variant)?;
        Some(self.enqueue_ratio? <= *enqueue && self.round_trip_ratio? <= *round_trip)
    }
}

/// Everything one benchmark run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchReport {
    /// The device, e.g. `cuda:0 (NVIDIA H200)`.
    pub device: String,
    /// The sample counts used.
    pub options: BenchOptions,
    /// The figures, per kernel: raw (when available), checked, unchecked.
    pub figures: Vec<Figure>,
}

impl LaunchReport {
    pub(crate) fn new(device: String, options: BenchOptions, figures: Vec<Figure>) -> Self {
        LaunchReport {
            device,
            options,
            figures,
        }
    }

    /// The figure of one kernel and variant.
    pub fn figure(&self, kernel: &str, variant: Variant) -> Option<&Figure> {
        self.figures
            .iter()
            .find(|f| f.kernel == kernel && f.variant == variant)
    }

    /// Whether the report has a raw driver baseline.
    pub fn has_baseline(&self) -> bool {
        self.figures.iter().any(|f| f.variant == Variant::Raw)
    }
}

/// Fills in the ratios to the raw figure of the same kernel.
pub(crate) fn with_ratios(mut figures: Vec<Figure>) -> Vec<Figure> {
    let raw = figures.iter().find(|f| f.variant == Variant::Raw).cloned();
    if let Some(raw) = raw {
        for figure in &mut figures {
            figure.enqueue_ratio = Some(figure.enqueue_ns / raw.enqueue_ns);
            figure.round_trip_ratio = Some(figure.round_trip_ns / raw.round_trip_ns);
        }
    }
    figures
}

impl fmt::Display for LaunchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "launch overhead on {} (median of {} bursts of {}, {} round trips)",
            self.device, self.options.bursts, self.options.burst_len, self.options.round_trips
        )?;
        writeln!(
            f,
            "{:<15} {:<19} {:>12} {:>8} {:>14} {:>8}  target",
            "kernel", "variant", "enqueue ns", "ratio", "launch+sync ns", "ratio"
        )?;
        let ratio = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.3}"));
        for fig in &self.figures {
            let target = match fig.meets_target() {
                Some(true) => "met",
                Some(false) => "MISSED",
                None => "",
            };
            writeln!(
                f,
                "{:<15} {:<19} {:>12.0} {:>8} {:>14.0} {:>8}  {target}",
                fig.kernel,
                fig.variant.as_str(),
                fig.enqueue_ns,
                ratio(fig.enqueue_ratio),
                fig.round_trip_ns,
                ratio(fig.round_trip_ratio)
            )?;
        }
        if !self.has_baseline() {
            writeln!(
                f,
                "(no raw driver baseline on this device: chevron's own figures)"
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(variant: Variant, enqueue_ns: f64, round_trip_ns: f64) -> Figure {
        Figure {
            kernel: "empty",
            variant,
            enqueue_ns,
            round_trip_ns,
            enqueue_ratio: None,
            round_trip_ratio: None,
        }
    }

    #[test]
    fn ratios_are_relative_to_raw_and_judge_targets() {
        let figures = with_ratios(vec![
            figure(Variant::Raw, 3300.0, 8000.0),
            figure(Variant::Checked, 3366.0, 8100.0),
            figure(Variant::Unchecked, 3400.0, 8000.0),
        ]);
        assert_eq!(figures[0].meets_target(), None);
        assert!((figures[1].enqueue_ratio.unwrap() - 1.02).abs() < 1e-9);
        assert_eq!(figures[1].meets_target(), Some(true));
        assert_eq!(figures[2].meets_target(), Some(false));
        let report = LaunchReport::new("cuda:0".into(), BenchOptions::quick(), figures);
        let table = report.to_string();
        assert!(
            table.contains("chevron checked") && table.contains("MISSED"),
            "{table}"
        );
    }
}
