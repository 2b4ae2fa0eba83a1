//! The REPL's state (device, JIT session, named buffers, stream) and what each input does.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chevron::jit::Session;
use chevron::{BackendKind, Device, Error, KernelArg, LaunchConfig, Runtime, Stream, Token};

use super::globals::{self, DeclaredGlobal};
use super::host::HostScalar;
use super::input::{usage, Input};
use super::launch::{cpp_element_type, literal_type, parameter_types, parse_launch};
use crate::commands::run::{prepare, Prepared};
use crate::commands::{pick_device, runtime};
use crate::output::escape_controls;
use crate::source_file::read_source;
use crate::spec::ArgSpec;

/// Whether to go on after an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read the next input.
    Continue,
    /// `:quit`.
    Quit,
}

/// The REPL's state.
pub struct Repl {
    runtime: Runtime,
    pub(super) device: Device,
    session: Session,
    pub(super) stream: Stream,
    pub(super) buffers: BTreeMap<String, Prepared>,
    /// Host scalars (`int n = 4;`), usable in launches, loops and printf.
    pub(super) scalars: BTreeMap<String, HostScalar>,
    /// Device variables as the snippets declared them, for `:print`.
    globals: BTreeMap<String, DeclaredGlobal>,
    pub(super) timing: bool,
    /// Raised by Ctrl-C: ends a compile or a launch.
    interrupt: Option<Arc<AtomicBool>>,
    /// Inputs that failed so far.
    pub failures: usize,
}

const HELP: &str = "\
CUDA C++ (kernels, __device__ functions and globals, types, #include) is compiled once it is
complete; later input calls earlier functions and uses earlier globals without redeclaring them.
Definitions and launches may share a line; a :command is read at the start of any line.
  NAME<<<GRID, BLOCK[, SHARED]>>>(ARGS);   launch and wait (GRID/BLOCK: N or dim3(x, y, z);
                                           ARGS: buffer names, host scalars or literals)
Host code the REPL runs itself:
  int n = 4;  float s = 2.5f;  n = 8;      host scalars (numbers in launches, loops, printf)
  float x[256];  int v[3] = {1, 2, 3};     device buffers, zeroed or initialised
  for (int i = 0; i < n; i++) k<<<1, 32>>>(x, i);     a loop of launches (and printf)
  printf(\"%d %f\\n\", n, s);                 printf over host scalars and literals
  :buf NAME TYPE[COUNT]=zeros|fill:V|iota|file:PATH   create a device buffer
  :print NAME [COUNT]       print a buffer, or a __device__/__constant__ global by its type
  :save NAME PATH           write a buffer (raw bytes)
  :symbols                  kernels, functions, globals, buffers
  :device ID                switch device (starts a new session)
  :load FILE.cu             compile a file as one snippet
  :time on|off              report launch times     :help   :quit (or Ctrl-D)";

impl Repl {
    /// A REPL on device `label` (default: the default device).
    pub fn new(label: Option<&str>) -> Result<Repl, String> {
        let runtime = runtime()?;
        let device = pick_device(&runtime, label)?.clone();
        let session = Session::new(&device).map_err(|e| e.to_string())?;
        let stream = device.create_stream().map_err(|e| e.to_string())?;
        Ok(Repl {
            runtime,
            device,
            session,
            stream,
            buffers: BTreeMap::new(),
            scalars: BTreeMap::new(),
            globals: BTreeMap::new(),
            timing: true,
            interrupt: None,
            failures: 0,
        })
    }

    /// Makes `flag` (raised by Ctrl-C) end the compile in progress, in this session and in the
    /// sessions `:device` starts.
    pub fn attach_interrupt(&mut self, flag: &Arc<AtomicBool>) {
        self.session.set_interrupt(Arc::clone(flag));
        self.interrupt = Some(Arc::clone(flag));
    }

    /// One line saying where the REPL runs.
    pub fn banner(&self) -> String {
        let (_, (major, minor)) = self.session.compiler();
        format!(
            "chevron repl on {} (NVRTC {major}.{minor}); :help for help, Ctrl-D quits",
            self.device.label()
        )
    }

    /// Runs inputs in order until one asks to quit.
    pub fn handle_all(&mut self, inputs: Vec<Input>, interrupted: &AtomicBool) -> Flow {
        for input in inputs {
            if self.handle(input, interrupted) == Flow::Quit {
                return Flow::Quit;
            }
        }
        Flow::Continue
    }

    /// Runs one input; an error is reported on one line and counted.
    pub fn handle(&mut self, input: Input, interrupted: &AtomicBool) -> Flow {
        let result = match input {
            Input::Snippet(source) => self.add(&source),
            Input::Launch(text) => self.launch(&self.substitute(&text), interrupted),
            Input::Host(text) => self.host(&text, interrupted),
            Input::Command(command) => self.command(&command),
        };
        match result {
            Ok(flow) => flow,
            Err(message) => {
                self.failures += 1;
                eprintln!("error: {}", escape_controls(&one_line(&message), ""));
                Flow::Continue
            }
        }
    }

    fn add(&mut self, source: &str) -> Result<Flow, String> {
        if let Some(flag) = &self.interrupt {
            flag.store(false, Ordering::SeqCst);
        }
        let added = self.session.add(source).map_err(|e| e.to_string())?;
        self.globals.extend(globals::declared(source));
        let defined = if added.defined.is_empty() {
            "declarations only".to_string()
        } else {
            added.defined.join(", ")
        };
        let mut line = format!("snippet {}: {defined}", added.snippet);
        if self.timing {
            let how = if added.cache_hit {
                "cached"
            } else {
                "compiled"
            };
            line.push_str(&format!(" ({how} in {})", ms(added.compile_time)));
        }
        println!("{line}");
        Ok(Flow::Continue)
    }

    pub(super) fn launch(&mut self, text: &str, interrupted: &AtomicBool) -> Result<Flow, String> {
        let line = parse_launch(text)?;
        let kernel = self
            .session
            .kernel(&line.kernel)
            .map_err(|e| e.to_string())?;
        let name = kernel.display_name().to_string();
        let types = parameter_types(&name);
        let params = kernel.params().map(<[_]>::to_vec);
        if let Some(params) = &params {
            if params.len() != line.args.len() {
                return Err(format!(
                    "kernel `{name}` takes {} arguments, {} given",
                    params.len(),
                    line.args.len()
                ));
            }
        }
        let mut scalars = Vec::new();
        for (i, arg) in line.args.iter().enumerate() {
            if self.buffers.contains_key(arg) {
                continue;
            }
            let size = params.as_ref().map_or(8, |p| p[i].size);
            let cpp = types.as_ref().and_then(|t| t.get(i)).map(String::as_str);
            let param = match cpp {
                Some(cpp) => format!("kernel `{name}`, parameter {i} (`{cpp}`)"),
                None => format!("kernel `{name}`, parameter {i}"),
            };
            if cpp.is_some_and(|cpp| cpp.trim_end().ends_with('*')) {
                return Err(format!(
                    "{param}: `{arg}` is not a buffer; a pointer parameter takes the name of a \
                     buffer made with :buf"
                ));
            }
            let ty = literal_type(cpp, size, arg).map_err(|e| format!("{param}: {e}"))?;
            let literal = arg.trim_end_matches(['f', 'F', 'u', 'U', 'l', 'L']);
            let literal = if literal.is_empty() || literal.starts_with("0x") {
                arg
            } else {
                literal
            };
            let spec = ArgSpec::parse(&format!("{ty}:{literal}"))
                .map_err(|e| format!("{param}: `{arg}`: {e}"))?;
            scalars.push((i, prepare(&self.device, &self.stream, &spec)?));
        }
        let mut args: Vec<&dyn KernelArg> = Vec::new();
        for (i, arg) in line.args.iter().enumerate() {
            match self.buffers.get(arg) {
                Some(buffer) => args.push(buffer.as_kernel_arg()),
                None => {
                    let (_, scalar) = scalars.iter().find(|(j, _)| *j == i).expect("prepared");
                    args.push(scalar.as_kernel_arg());
                }
            }
        }
        let config = LaunchConfig {
            grid: line.grid,
            block: line.block,
            shared_bytes: line.shared,
        };
        interrupted.store(false, Ordering::SeqCst);
        let started = Instant::now();
        let token = kernel.launch(&self.stream, config, &args[..]);
        match token.and_then(|token| Ok((wait(&token, interrupted)?, token))) {
            Ok((true, _)) => {}
            Ok((false, token)) => {
                if let Some(message) = self.interrupt(&token, &name)? {
                    return Err(message);
                }
            }
            Err(err) => return Err(self.failed(err)),
        }
        if self.timing {
            println!("{name}: {}", ms(started.elapsed()));
        }
        Ok(Flow::Continue)
    }

    /// Ctrl-C while `token`'s launch runs. On the CPU device the kernel is stopped (its stream
    /// stays faulted, so later launches get a new one; buffers are untouched by the stop); on a
    /// GPU a running kernel cannot be stopped, so the REPL only stops waiting and goes on with a
    /// new stream. `None` when the launch finished after all.
    fn interrupt(&mut self, token: &Token, name: &str) -> Result<Option<String>, String> {
        let Err(error) = token.wait_timeout(Duration::ZERO) else {
            return Ok(None);
        };
        self.stream = self.device.create_stream().map_err(|e| e.to_string())?;
        let device = self.device.label();
        Ok(Some(match error {
            Error::Timeout { detail, .. } if self.device.backend() == BackendKind::Cpu => {
                format!(
                    "interrupted: stopped `{name}` on {device} ({detail}); the session and its \
                     buffers are intact"
                )
            }
            Error::Timeout { .. } => format!(
                "interrupted: `{name}` keeps running on {device} (a GPU cannot stop a running \
                 kernel); the session goes on with a new stream, and buffers the kernel writes \
                 may change until it ends"
            ),
            other => format!("interrupted: `{name}`: {other}"),
        }))
    }

    /// A launch that failed: after a fault the stream stays faulted, so later launches get a
    /// new one (on the CPU device the session goes on; a GPU's context may be lost).
    fn failed(&mut self, err: Error) -> String {
        if matches!(err, Error::Fault { .. }) {
            if let Ok(stream) = self.device.create_stream() {
                self.stream = stream;
            }
        }
        err.to_string()
    }

    fn command(&mut self, command: &str) -> Result<Flow, String> {
        let words: Vec<&str> = command.split_whitespace().collect();
        match words.as_slice() {
            ["quit" | "q" | "exit"] => return Ok(Flow::Quit),
            ["help" | "h"] => println!("{HELP}"),
            ["buf", name, spec] => self.create_buffer(name, spec)?,
            ["print", name] => self.print(name, None)?,
            ["print", name, count] => {
                let count = count
                    .parse()
                    .map_err(|_| format!(":print: `{count}` is not a count"))?;
                self.print(name, Some(count))?
            }
            ["save", name, path] => {
                let Some(Prepared::Buffer { buffer, .. }) = self.buffers.get(*name) else {
                    return Err(format!("no buffer `{name}`"));
                };
                let bytes = buffer.to_vec().map_err(|e| e.to_string())?;
                std::fs::write(path, bytes).map_err(|e| format!("{path}: {e}"))?;
            }
            ["symbols"] => self.symbols(),
            ["device", label] => self.switch_device(label)?,
            ["load", path] => {
                let source = read_source(std::path::Path::new(path))?;
                return self.add(&source);
            }
            ["time", "on"] => self.timing = true,
            ["time", "off"] => self.timing = false,
            [name, ..] if usage(name).is_some() => {
                return Err(format!("usage: {}", usage(name).unwrap_or_default()))
            }
            [] => return Err("an empty command: `:help` lists them".into()),
            _ => return Err(format!("unknown command `:{command}` (:help lists them)")),
        }
        Ok(Flow::Continue)
    }

    fn create_buffer(&mut self, name: &str, spec: &str) -> Result<(), String> {
        if !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Err(format!(":buf: `{name}` is not a name"));
        }
        let parsed = ArgSpec::parse(spec)?;
        if !matches!(parsed, ArgSpec::Buffer { .. }) {
            return Err(format!(":buf: `{spec}` is not a buffer (TYPE[COUNT]=INIT)"));
        }
        let buffer = prepare(&self.device, &self.stream, &parsed)?;
        self.buffers.insert(name.to_string(), buffer);
        Ok(())
    }

    fn print(&self, name: &str, count: Option<usize>) -> Result<(), String> {
        if let Some(scalar) = self.scalars.get(name) {
            println!("{name} ({}) = {}", scalar.ty, scalar.text);
            return Ok(());
        }
        let Some(Prepared::Buffer { ty, buffer }) = self.buffers.get(name) else {
            return self.print_global(name, count);
        };
        let values = ty.decode(&buffer.to_vec().map_err(|e| e.to_string())?);
        println!("{name} = {}", list(&values, count));
        Ok(())
    }

    /// `:print` of a device variable: read from the device, shown by its declared type (raw
    /// bytes when the type is not a scalar the REPL knows).
    fn print_global(&self, name: &str, count: Option<usize>) -> Result<(), String> {
        let global = self
            .session
            .global(name)
            .map_err(|e| format!("no buffer `{name}`, and {e}"))?;
        let mut bytes = vec![0u8; global.size as usize];
        self.stream
            .copy_to_host_at(&mut bytes, global.ptr)
            .map_err(|e| e.to_string())?;
        let declared = self.globals.get(name);
        let cpp = declared.map_or("unknown type", |d| d.cpp.as_str());
        match cpp_element_type(cpp) {
            Some(ty) if declared.is_some_and(|d| d.count.is_none()) => {
                println!("{name} ({cpp}) = {}", ty.decode(&bytes)[0]);
            }
            Some(ty) => {
                let values = ty.decode(&bytes);
                println!(
                    "{name} ({cpp}[{}]) = {}",
                    values.len(),
                    list(&values, count)
                );
            }
            None => {
                let values: Vec<String> = bytes.iter().map(|b| format!("0x{b:02x}")).collect();
                println!(
                    "{name} ({cpp}, {} bytes) = {}",
                    bytes.len(),
                    list(&values, count)
                );
            }
        }
        Ok(())
    }

    fn symbols(&self) {
        for symbol in self.session.symbols() {
            println!(
                "snippet {:<4} {:<8} {}",
                symbol.snippet, symbol.kind, symbol.display
            );
        }
        for (name, buffer) in &self.buffers {
            if let Prepared::Buffer { ty, buffer } = buffer {
                println!("buffer       {name} {ty}[{}]", buffer.len() / ty.size());
            }
        }
    }

    fn switch_device(&mut self, label: &str) -> Result<(), String> {
        let device = self
            .runtime
            .device(label)
            .map_err(|e| e.to_string())?
            .clone();
        let mut session = Session::new(&device).map_err(|e| e.to_string())?;
        if let Some(flag) = &self.interrupt {
            session.set_interrupt(Arc::clone(flag));
        }
        self.stream = device.create_stream().map_err(|e| e.to_string())?;
        self.session = session;
        self.buffers.clear();
        self.scalars.clear();
        self.globals.clear();
        self.device = device;
        println!(
            "device {}: a new session (earlier snippets and buffers are gone)",
            self.device.label()
        );
        Ok(())
    }
}

/// Waits for `token`; `false` when interrupted first.
fn wait(token: &Token, interrupted: &AtomicBool) -> chevron::Result<bool> {
    loop {
        if token.is_done()? {
            return Ok(true);
        }
        if interrupted.swap(false, Ordering::SeqCst) {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// `[a, b, …]`: the first `count` values (all without a count).
fn list<T: ToString>(values: &[T], count: Option<usize>) -> String {
    let shown = count.unwrap_or(values.len()).min(values.len());
    let mut items: Vec<String> = values[..shown].iter().map(ToString::to_string).collect();
    if shown < values.len() {
        items.push("…".into());
    }
    format!("[{}]", items.join(", "))
}

fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" | ")
}

fn ms(time: Duration) -> String {
    format!("{:.3} ms", time.as_secs_f64() * 1e3)
}
