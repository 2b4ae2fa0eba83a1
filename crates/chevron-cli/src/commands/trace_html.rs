//! A trace (Chrome trace-event JSON as chevron writes it) as one self-contained HTML page: a
//! canvas timeline (one row per track: host threads, streams, the device's runs, thread
//! blocks) with a time axis, a legend, zoom and pan (mouse wheel and drag, `+`/`-`/arrow keys,
//! `0` to reset) and details on hover, drawn by the script in `trace_timeline.js`; a
//! per-kernel summary of device time (count, total, mean, min, max); and a table of the
//! launches with their host and device durations. Nothing is fetched from the network.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use serde_json::{json, Value};

/// The script that draws the timeline from the page's data.
const SCRIPT: &str = include_str!("trace_timeline.js");

/// Launch rows the table shows (the summary counts them all).
const TABLE_ROWS: usize = 1000;

/// One bar.
struct Bar {
    name: String,
    category: String,
    start: f64,
    duration: f64,
    args: Value,
}

/// Escapes text for HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Category colours, in legend order.
const COLORS: [(&str, &str); 9] = [
    ("launch", "#4e79a7"),
    ("device", "#76b7b2"),
    ("block", "#59a14f"),
    ("copy", "#f28e2b"),
    ("fill", "#edc948"),
    ("wait", "#bab0ac"),
    ("module", "#b07aa1"),
    ("fault", "#e15759"),
    ("memory", "#9c755f"),
];

/// Device time of one kernel, over its runs.
#[derive(Default)]
struct Summary {
    count: u64,
    total: f64,
    min: f64,
    max: f64,
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
                args: event["args"].clone(),
            }),
            _ => {}
        }
    }
    if tracks.is_empty() {
        return Err("the trace holds no events".into());
    }
    for bars in tracks.values_mut() {
        bars.sort_by(|a, b| a.start.total_cmp(&b.start));
    }
    let begin = tracks
        .values()
        .flatten()
        .map(|b| b.start)
        .fold(f64::INFINITY, f64::min);
    let end = tracks
        .values()
        .flatten()
        .map(|b| b.start + b.duration)
        .fold(0.0, f64::max);
    let label = |(pid, tid): (u64, u64)| {
        let process = process_names.get(&pid).map_or("", String::as_str);
        let thread = thread_names.get(&(pid, tid)).map_or("", String::as_str);
        format!("{process} · {thread}")
    };
    let on_device = |track: &(u64, u64)| label(*track).ends_with(" on the device");
    let data = page_data(&tracks, &label, begin, end);
    let summary = summary_table(&tracks, &on_device);
    let launches = launch_table(&tracks, &label, &on_device, begin);
    let legend: String = COLORS
        .iter()
        .map(|(name, color)| {
            format!("<span class=\"key\"><i style=\"background:{color}\"></i>{name}</span>")
        })
        .collect();
    let title = escape(title);
    // `</` inside the data would end the script element.
    let data = data.to_string().replace("</", "<\\/");
    Ok(format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>chevron trace {title}</title>\n\
         <style>body{{font-family:sans-serif;margin:12px}} table{{border-collapse:collapse;font-size:12px}}\
         td,th{{border:1px solid #ccc;padding:2px 6px}} .key{{margin-right:14px;font-size:12px}}\
         .key i{{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}}\
         #tip{{position:fixed;display:none;background:#fff;border:1px solid #888;padding:4px;font-size:11px;\
         max-width:600px;pointer-events:none;white-space:pre-wrap}} canvas{{border:1px solid #ccc;cursor:grab}}</style>\n\
         </head>\n<body>\n<h2>chevron trace {title}</h2>\n\
         <p>{} tracks, {:.1} µs. Zoom with the mouse wheel or <kbd>+</kbd>/<kbd>-</kbd>, pan by dragging \
         or with <kbd>←</kbd>/<kbd>→</kbd>, <kbd>0</kbd> shows everything; hover a bar for its details.</p>\n\
         <div id=\"legend\">{legend}</div>\n<canvas id=\"timeline\" tabindex=\"0\"></canvas>\n<div id=\"tip\"></div>\n\
         <pre id=\"timing\"></pre>\n<h3>Device time per kernel</h3>\n{summary}\n<h3>Launches</h3>\n{launches}\n\
         <script id=\"data\" type=\"application/json\">{data}</script>\n<script>{SCRIPT}</script>\n</body></html>\n",
        tracks.len(),
        end - begin
    ))
}

/// The tracks as the script draws them: per track its label and bars `[start, duration,
/// category, name, details]`, times in µs from `begin`; names and details as indexes into
/// shared string tables.
fn page_data(
    tracks: &BTreeMap<(u64, u64), Vec<Bar>>,
    label: &dyn Fn((u64, u64)) -> String,
    begin: f64,
    end: f64,
) -> Value {
    let mut strings: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut intern = |text: String| -> usize {
        if let Some(&i) = index.get(&text) {
            return i;
        }
        strings.push(text.clone());
        index.insert(text, strings.len() - 1);
        strings.len() - 1
    };
    let categories: Vec<&str> = COLORS.iter().map(|(name, _)| *name).collect();
    let rows: Vec<Value> = tracks
        .iter()
        .map(|(track, bars)| {
            let bars: Vec<Value> = bars
                .iter()
                .map(|bar| {
                    let category = categories
                        .iter()
                        .position(|c| *c == bar.category)
                        .unwrap_or(categories.len() - 1);
                    let mut details = bar.args.to_string();
                    details.truncate(details.floor_char_boundary(400));
                    json!([
                        ((bar.start - begin) * 1000.0).round() / 1000.0,
                        (bar.duration * 1000.0).round() / 1000.0,
                        category,
                        intern(bar.name.clone()),
                        intern(details)
                    ])
                })
                .collect();
            json!({"label": label(*track), "bars": bars})
        })
        .collect();
    let colors: Vec<&str> = COLORS.iter().map(|(_, color)| *color).collect();
    json!({"span": end - begin, "categories": categories, "colors": colors,
           "strings": strings, "rows": rows})
}

/// The per-kernel table of device time, from the device tracks.
fn summary_table(
    tracks: &BTreeMap<(u64, u64), Vec<Bar>>,
    on_device: &dyn Fn(&(u64, u64)) -> bool,
) -> String {
    let mut kernels: BTreeMap<&str, Summary> = BTreeMap::new();
    for (_, bars) in tracks.iter().filter(|(track, _)| on_device(track)) {
        for bar in bars.iter().filter(|b| b.category == "device") {
            // Copies and fills the CPU device's workers ran are on the same tracks.
            if bar.name.starts_with("copy") || bar.name == "fill" {
                continue;
            }
            let entry = kernels.entry(&bar.name).or_insert(Summary {
                min: f64::INFINITY,
                ..Summary::default()
            });
            entry.count += 1;
            entry.total += bar.duration;
            entry.min = entry.min.min(bar.duration);
            entry.max = entry.max.max(bar.duration);
        }
    }
    if kernels.is_empty() {
        return "<p>No device durations in this trace.</p>".into();
    }
    let mut table = String::from(
        "<table id=\"summary\"><tr><th>kernel</th><th>runs</th><th>total (µs)</th>\
         <th>mean (µs)</th><th>min (µs)</th><th>max (µs)</th></tr>\n",
    );
    for (name, s) in &kernels {
        let _ = writeln!(
            table,
            "<tr><td class=\"summary-kernel\">{}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td>\
             <td>{:.2}</td><td>{:.2}</td></tr>",
            escape(name),
            s.count,
            s.total,
            s.total / s.count as f64,
            s.min,
            s.max
        );
    }
    table.push_str("</table>");
    table
}

/// The launches of the host tracks, with the device duration of each: the k-th launch of a
/// kernel on a stream is the k-th run of that kernel on the stream's device track.
fn launch_table(
    tracks: &BTreeMap<(u64, u64), Vec<Bar>>,
    label: &dyn Fn((u64, u64)) -> String,
    on_device: &dyn Fn(&(u64, u64)) -> bool,
    begin: f64,
) -> String {
    // Device runs by (device label, stream, kernel), in time order.
    let mut runs: HashMap<(String, u64, &str), Vec<f64>> = HashMap::new();
    for (track, bars) in tracks.iter().filter(|(track, _)| on_device(track)) {
        let device = label(*track);
        let device = device.split(" · ").next().unwrap_or("").to_string();
        let stream = track.1.saturating_sub(50_000);
        for bar in bars.iter().filter(|b| b.category == "device") {
            let key = (device.clone(), stream, bar.name.as_str());
            runs.entry(key).or_default().push(bar.duration);
        }
    }
    let mut launches: Vec<&Bar> = tracks
        .iter()
        .filter(|(track, _)| label(**track).starts_with("host "))
        .flat_map(|(_, bars)| bars.iter().filter(|b| b.category == "launch"))
        .collect();
    launches.sort_by(|a, b| a.start.total_cmp(&b.start));
    let mut taken: HashMap<(String, u64, String), usize> = HashMap::new();
    let mut table = String::from(
        "<table id=\"launches\"><tr><th>kernel</th><th>at (µs)</th><th>host (µs)</th>\
         <th>device (µs)</th><th>details</th></tr>\n",
    );
    for (row, bar) in launches.iter().enumerate() {
        let device = bar.args["device"].as_str().unwrap_or("").to_string();
        let stream = bar.args["stream"].as_u64().unwrap_or(0);
        let next = taken
            .entry((device.clone(), stream, bar.name.clone()))
            .or_insert(0);
        let ran = runs
            .get(&(device, stream, bar.name.as_str()))
            .and_then(|r| r.get(*next));
        *next += 1;
        if row >= TABLE_ROWS {
            continue;
        }
        let device_time = ran.map_or_else(|| "–".to_string(), |d| format!("{d:.2}"));
        let _ = writeln!(
            table,
            "<tr><td class=\"kernel\">{}</td><td>{:.1}</td><td>{:.2}</td><td>{device_time}</td>\
             <td><code>{}</code></td></tr>",
            escape(&bar.name),
            bar.start - begin,
            bar.duration,
            escape(&bar.args.to_string())
        );
    }
    table.push_str("</table>");
    if launches.len() > TABLE_ROWS {
        let _ = write!(
            table,
            "<p>The first {TABLE_ROWS} of {} launches.</p>",
            launches.len()
        );
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_summarises_device_time_and_pairs_launches_with_runs() {
        let trace = json!({"traceEvents": [
            {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "host"}},
            {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "main"}},
            {"name": "process_name", "ph": "M", "pid": 2, "tid": 0, "args": {"name": "cpu:0"}},
            {"name": "thread_name", "ph": "M", "pid": 2, "tid": 50_003,
             "args": {"name": "stream 3 on the device"}},
            {"name": "k", "cat": "launch", "ph": "X", "ts": 10.0, "dur": 2.0, "pid": 1, "tid": 1,
             "args": {"device": "cpu:0", "stream": 3}},
            {"name": "k", "cat": "launch", "ph": "X", "ts": 20.0, "dur": 2.0, "pid": 1, "tid": 1,
             "args": {"device": "cpu:0", "stream": 3}},
            {"name": "k", "cat": "device", "ph": "X", "ts": 11.0, "dur": 4.0, "pid": 2,
             "tid": 50_003, "args": {}},
            {"name": "k", "cat": "device", "ph": "X", "ts": 21.0, "dur": 8.0, "pid": 2,
             "tid": 50_003, "args": {"x": "</script>"}},
        ]});
        let page = render(&trace, "t.json").unwrap();
        assert!(page.contains(
            "<td class=\"summary-kernel\">k</td><td>2</td><td>12.00</td><td>6.00</td>\
             <td>4.00</td><td>8.00</td>"
        ));
        assert!(
            page.contains("<td>0.0</td><td>2.00</td><td>4.00</td>"),
            "{page}"
        );
        assert!(page.contains("<td>10.0</td><td>2.00</td><td>8.00</td>"));
        assert_eq!(
            page.matches("</script>").count(),
            2,
            "data cannot end the script"
        );
    }
}
