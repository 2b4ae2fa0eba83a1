//! `chevron repl [--device ID]`: an interactive CUDA C++ session over `chevron::jit::Session`.
//!
//! On a terminal: rustyline (history file, multi-line input with a `...>` prompt; Ctrl-C drops
//! the input being entered, or interrupts a running launch: on the CPU device the kernel is
//! stopped, on a GPU, which cannot stop a running kernel, the REPL stops waiting for it; either
//! way later launches use a new stream; during a compile, Ctrl-C abandons it and the session
//! goes on unchanged; Ctrl-D quits). From a pipe or
//! a file: the same language without prompts, so sessions are scriptable. Each error is one
//! line on stderr and the session goes on; at the end the exit code is 0 when nothing failed,
//! else 2. The history file is `CHEVRON_HISTORY`, else `$XDG_STATE_HOME/chevron/repl_history`
//! (`~/.local/state/chevron/repl_history`).

mod globals;
mod host;
mod input;
mod launch;
mod printf;
mod session;
mod units;

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;

use input::Accumulator;
use session::{Flow, Repl};

/// Runs the REPL; exits the process with 0 when nothing failed, else 2 (a launch that was
/// interrupted may still be running, and must not be waited for).
pub fn run(device: Option<&str>) -> Result<(), String> {
    let mut repl = Repl::new(device)?;
    let interrupted = Arc::new(AtomicBool::new(false));
    repl.attach_interrupt(&interrupted);
    if std::io::stdin().is_terminal() {
        interactive(&mut repl, &interrupted)?;
    } else {
        catch_ctrl_c(&interrupted)?;
        piped(&mut repl, &interrupted);
    }
    let _ = std::io::stdout().flush();
    std::process::exit(if repl.failures == 0 { 0 } else { 2 });
}

/// Ctrl-C (SIGINT) sets `interrupted` instead of ending the process.
fn catch_ctrl_c(interrupted: &Arc<AtomicBool>) -> Result<(), String> {
    let flag = Arc::clone(interrupted);
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .map_err(|e| format!("cannot handle Ctrl-C: {e}"))
}

fn interactive(repl: &mut Repl, interrupted: &Arc<AtomicBool>) -> Result<(), String> {
    let mut editor = DefaultEditor::new().map_err(|e| format!("terminal: {e}"))?;
    // After the editor, which takes SIGINT for its lifetime: while it reads, the terminal is raw
    // and Ctrl-C is a key; while a launch runs, Ctrl-C is this signal.
    catch_ctrl_c(interrupted)?;
    let history = history_file();
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    println!("{}", repl.banner());
    let mut input = Accumulator::default();
    loop {
        let prompt = if input.is_pending() { "...> " } else { "cu> " };
        match editor.readline(prompt) {
            Ok(line) => {
                let _ = editor.add_history_entry(line.as_str());
                if repl.handle_all(input.feed(&line), interrupted) == Flow::Quit {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => input.clear(),
            Err(ReadlineError::Eof) => break,
            Err(err) => return Err(format!("terminal: {err}")),
        }
    }
    if let Some(path) = &history {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = editor.save_history(path);
    }
    Ok(())
}

fn piped(repl: &mut Repl, interrupted: &AtomicBool) {
    let mut input = Accumulator::default();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else {
            eprintln!("error: stdin is not readable text");
            repl.failures += 1;
            return;
        };
        if repl.handle_all(input.feed(&line), interrupted) == Flow::Quit {
            return;
        }
    }
    if input.is_pending() {
        eprintln!(
            "error: the input ends inside an unfinished unit (unbalanced braces, or no final `;`)"
        );
        repl.failures += 1;
    }
}

fn history_file() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHEVRON_HISTORY") {
        return Some(PathBuf::from(path));
    }
    let state = match std::env::var_os("XDG_STATE_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(std::env::var_os("HOME")?).join(".local/state"),
    };
    Some(state.join("chevron/repl_history"))
}
