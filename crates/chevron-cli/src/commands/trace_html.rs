//! A trace (Chrome trace-event JSON as chevron writes it) as one self-contained HTML page: an
//! inline SVG timeline, one row per track (host threads, streams, executors, thread blocks),
//! each complete event a bar with its name and details on hover, and a table of the launches.
//! No script, no style sheet or font from the network.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::Value;

const WIDTH: f64 = 1360.0;
const LABEL: f64 = 260.0;
const ROW: f64 = 22.0;

/// One bar.
struct Bar {
    name: String,
    category: String,
    start: f64,
    duration: f64,
    args: String,
}

/// Escapes text for HTML and SVG.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn color(category: &str) -> &'static str {
    match category {
        "launch" => "#4e79a7",
        "block" => "#59a14f",
        "device" => "#76b7b2",
        "copy" => "#f28e2b",
        "fill" => "#edc948",
        "wait" => "#bab0ac",
        "module" => "#b07aa1",
        "fault" => "#e15759",
        _ => "#9c755f",
    }
}

/// The HTML page of `trace`, titled `title`.
pub fn render(trace: &Value, title: &str) -> Result<String, String> {
    let events = trace["traceEvents"]
        .as_array()
        .ok_or("no `traceEvents` array: not a Chrome trace")?;
    let mut process_names = BTreeMap::new();
    let mut thread_names = BTreeMap::new();
    let mut tracks: BTreeMap<(u64, u64), Vec<Bar>> = BTreeMap::new();
    for event in events {
        let pid = event["pid"].as_u64().unwrap_or(0);
        let tid = event["tid"].as_u64().unwrap_or(0);
        let name = event["name"].as_str().unwrap_or("").to_string();
        match event["ph"].as_str() {
            Some("M") => {
                let label = event["args"]["name"].as_str().unwrap_or("").to_string();
                if name == "process_name" {
                    process_names.insert(pid, label);
                } else if name == "thread_name" {
                    thread_names.insert((pid, tid), label);
                }
            }
            Some("X") => tracks.entry((pid, tid)).or_default().push(Bar {
                name,
                category: event["cat"].as_str().unwrap_or("").to_string(),
                start: event["ts"].as_f64().unwrap_or(0.0),
                duration: event["dur"].as_f64().unwrap_or(0.0),
                args: event["args"].to_string(),
            }),
            _ => {}
        }
    }
    if tracks.is_empty() {
        return Err("the trace holds no events".into());
    }
    let bars = tracks.values().flatten();
    let begin = bars.clone().map(|b| b.start).fold(f64::INFINITY, f64::min);
    let end = bars
        .clone()
        .map(|b| b.start + b.duration)
        .fold(0.0, f64::max);
    let names = |(pid, tid): (u64, u64)| {
        let process = process_names.get(&pid).map_or("", String::as_str);
        let thread = thread_names.get(&(pid, tid)).map_or("", String::as_str);
        format!("{process} · {thread}")
    };
    let mut body = timeline(&tracks, &names, begin, end);
    // Loading modules may dwarf the rest: then a second view starts at the first device work.
    let work = bars
        .filter(|b| {
            matches!(
                b.category.as_str(),
                "launch" | "device" | "block" | "copy" | "fill"
            )
        })
        .map(|b| b.start)
        .fold(f64::INFINITY, f64::min);
    if work.is_finite() && end - work < (end - begin) / 2.0 {
        let _ = write!(
            body,
            "<h3>From the first launch or copy ({:.1} µs)</h3>\n{}",
            work - begin,
            timeline(&tracks, &names, work, end)
        );
    }
    let mut launches = String::new();
    for (track, bars) in &tracks {
        if !names(*track).starts_with("host ") {
            continue;
        }
        for bar in bars.iter().filter(|b| b.category == "launch") {
            let _ = write!(
                launches,
                "<tr><td class=\"kernel\">{}</td><td>{:.1}</td><td>{:.2}</td><td><code>{}</code></td></tr>",
                escape(&bar.name),
                bar.start - begin,
                bar.duration,
                escape(&bar.args)
            );
        }
    }
    let title = escape(title);
    Ok(format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>chevron trace {title}</title></head>\n\
         <body style=\"font-family: sans-serif; margin: 12px\">\n<h2>chevron trace {title}</h2>\n\
         <p>{} tracks, {:.1} µs. Hover a bar for its details.</p>\n{body}\n<h3>Launches</h3>\n\
         <table border=\"1\" cellpadding=\"3\" style=\"border-collapse: collapse; font-size: 12px\">\n\
         <tr><th>kernel</th><th>at (µs)</th><th>host (µs)</th><th>details</th></tr>\n{launches}</table>\n</body></html>\n",
        tracks.len(),
        end - begin
    ))
}

/// The SVG of the bars of `tracks` between `begin` and `end` (µs), one row per track.
fn timeline(
    tracks: &BTreeMap<(u64, u64), Vec<Bar>>,
    names: &dyn Fn((u64, u64)) -> String,
    begin: f64,
    end: f64,
) -> String {
    let span = (end - begin).max(1.0);
    let scale = (WIDTH - LABEL - 10.0) / span;
    let height = ROW * (tracks.len() as f64 + 1.0) + 10.0;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="11">"##
    );
    let _ = write!(
        svg,
        r##"<rect width="{WIDTH}" height="{height}" fill="#ffffff"/><text x="{LABEL}" y="14" fill="#333">+0 µs</text><text x="{}" y="14" text-anchor="end" fill="#333">+{:.1} µs</text>"##,
        WIDTH - 10.0,
        span
    );
    for (row, (track, bars)) in tracks.iter().enumerate() {
        let y = ROW * (row as f64 + 1.0);
        let label = escape(&names(*track));
        let fill = if row % 2 == 0 { "#f4f4f4" } else { "#ffffff" };
        let _ = write!(
            svg,
            r##"<rect x="0" y="{y}" width="{WIDTH}" height="{ROW}" fill="{fill}"/><text x="4" y="{}" fill="#222">{label}</text>"##,
            y + 15.0
        );
        for bar in bars.iter().filter(|b| b.start + b.duration >= begin) {
            let x = LABEL + (bar.start.max(begin) - begin) * scale;
            let w = ((bar.start + bar.duration - bar.start.max(begin)) * scale).max(1.0);
            let name = escape(&bar.name);
            let _ = write!(
                svg,
                r##"<g><title>{name} ({:.2} µs) {}</title><rect x="{x:.1}" y="{:.1}" width="{w:.1}" height="{:.1}" fill="{}"/>"##,
                bar.duration,
                escape(&bar.args),
                y + 2.0,
                ROW - 4.0,
                color(&bar.category)
            );
            if w > 7.0 * name.len() as f64 {
                let _ = write!(
                    svg,
                    r##"<text x="{:.1}" y="{}" fill="#fff">{name}</text>"##,
                    x + 2.0,
                    y + 15.0
                );
            }
            svg.push_str("</g>");
        }
    }
    svg.push_str("</svg>");
    svg
}
