//! Config management plugins, rendered natively. Almost every plugin in public repositories
//! wraps an engine kdelta has: `kustomize build … | envsubst`, `helm template … |
//! argocd-vault-plugin generate -`, `helm secrets template …`. A plugin's `generate` command
//! is read as the small shell language such commands use (words, quotes, `$VAR`, `|`, `&&`,
//! `;`, `cd`, assignments) and turned into a [`Recipe`]: which engine renders which directory
//! with which options, then which filters run over its output. A command outside that
//! language is not guessed at: the Application is incomplete, with a notice that says what
//! was not understood.

use crate::source::RepoPath;
use std::collections::{BTreeMap, BTreeSet};

/// What a plugin's `generate` command does, in kdelta's terms.
#[derive(Clone, Debug, PartialEq)]
pub struct Recipe {
    /// The directory the generator reads, relative to the Application's path.
    pub dir: String,
    /// The directory the generator runs in (after `cd`), relative to the Application's path.
    pub cwd: String,
    pub generator: Generator,
    /// What the output goes through, in order.
    pub filters: Vec<Filter>,
    /// Variables the command uses whose value kdelta does not know (the sidecar's own
    /// environment, `KUBE_VERSION`); they expand to nothing, as an unset variable does.
    pub unknown_vars: BTreeSet<String>,
}

/// The command that writes the manifests.
#[derive(Clone, Debug, PartialEq)]
pub enum Generator {
    /// `kustomize build` / `kubectl kustomize`, with its flags.
    Kustomize(Vec<String>),
    /// `helm template` (or `helm secrets template`), as an Argo CD `helm` source block (the
    /// chart directory is the recipe's `dir`).
    Helm {
        options: serde_json::Value,
        /// Through helm-secrets: sops-encrypted value files are read as written.
        secrets: bool,
    },
    /// The directory's manifests as they are (`argocd-vault-plugin generate DIR`, `cat`).
    Directory { tool: String },
}

/// A command the generator's output is piped through.
#[derive(Clone, Debug, PartialEq)]
pub enum Filter {
    /// `envsubst`, with the variables its SHELL-FORMAT argument restricts it to.
    Envsubst(Option<Vec<String>>),
    /// A tool that replaces secret placeholders (`<path:…#key>`) with values from a store
    /// kdelta cannot read: the placeholders are left as written.
    SecretPlaceholders(String),
    /// A command kdelta does not know; the output lacks what it changes.
    Unknown(String),
}

/// Why a command is not rendered.
#[derive(Clone, Debug, PartialEq)]
pub struct NotUnderstood(pub String);

/// The variables Argo CD sets from the destination cluster, which kdelta does not know.
const CLUSTER_VARS: [&str; 2] = ["KUBE_VERSION", "KUBE_API_VERSIONS"];

/// What a [`CLUSTER_VARS`] variable expands to: a mark a flag's value is recognised by (the
/// flag is then dropped).
const CLUSTER_VALUE: &str = "\u{1}cluster:";

/// Tools that fill secret placeholders from a vault.
const SECRET_TOOLS: [&str; 4] = [
    "argocd-vault-plugin",
    "avp",
    "argocd-secret-replacer",
    "vals",
];

/// Reads `command` (a plugin's `generate` command and args) run with `env`.
pub fn recipe(command: &[String], env: &BTreeMap<String, String>) -> Result<Recipe, NotUnderstood> {
    let script = script_of(command);
    let statements = parse(&script)?;
    let mut env = env.clone();
    // The destination cluster's version and APIs: kdelta's defaults are used where a flag
    // passes them.
    for v in CLUSTER_VARS {
        env.entry(v.to_string())
            .or_insert_with(|| format!("{CLUSTER_VALUE}{v}"));
    }
    let mut unknown = BTreeSet::new();
    let mut dir = ".".to_string();
    let mut output: Option<Vec<Vec<String>>> = None;
    for statement in statements {
        if statement.silenced {
            continue;
        }
        let mut pipeline = Vec::new();
        for cmd in &statement.commands {
            let words = expand_words(cmd, &env, &mut unknown);
            pipeline.push(words);
        }
        // An assignment alone (`X=1`, `export X=1`).
        if let [words] = pipeline.as_slice() {
            let assignments: Vec<&str> = words
                .iter()
                .map(String::as_str)
                .skip_while(|w| *w == "export")
                .collect();
            if !assignments.is_empty() && assignments.iter().all(|w| is_assignment(w)) {
                for a in assignments {
                    let (k, v) = a.split_once('=').unwrap_or((a, ""));
                    env.insert(k.to_string(), v.to_string());
                }
                continue;
            }
            if let Some(first) = words.first() {
                if first == "cd" {
                    let to = words.get(1).map_or(".", String::as_str);
                    dir = join(&dir, to)?;
                    continue;
                }
                if is_preparation(words) {
                    continue;
                }
            }
        }
        if statement.redirects_stdout {
            return Err(NotUnderstood(format!(
                "`{}` writes to a file",
                statement.text.trim()
            )));
        }
        if output.is_some() {
            return Err(NotUnderstood(
                "more than one command writes manifests".to_string(),
            ));
        }
        output = Some(pipeline);
    }
    let Some(pipeline) = output else {
        return Err(NotUnderstood("no command writes manifests".to_string()));
    };
    let mut stages = pipeline.into_iter();
    let first = stages.next().unwrap_or_default();
    let (generator, at) = generator(&first)?;
    let mut filters = Vec::new();
    for stage in stages {
        if let Some(f) = filter(&stage) {
            filters.push(f);
        }
    }
    Ok(Recipe {
        dir: join(&dir, &at)?,
        cwd: dir,
        generator,
        filters,
        unknown_vars: unknown,
    })
}

/// Whether a plugin's `discover.find.command` claims the source directory: `Some(true)` or
/// `Some(false)` for the commands kdelta can answer (`find . -name X`, `test -f X`, `ls X`,
/// `[[ -n $VAR ]]` checks, joined by `&&`), `None` for others. `has_file` says whether a
/// file whose name matches a glob is at or below the directory.
pub fn discovers(
    command: &[String],
    env: &BTreeMap<String, String>,
    has_file: &dyn Fn(&str, bool) -> bool,
) -> Option<bool> {
    let statements = parse(&script_of(command)).ok()?;
    let mut unknown = BTreeSet::new();
    let mut all = true;
    for statement in &statements {
        let [cmd] = statement.commands.as_slice() else {
            // `find … | grep …` and the like.
            return None;
        };
        let words = expand_words(cmd, env, &mut unknown);
        let w: Vec<&str> = words.iter().map(String::as_str).collect();
        let holds = match w.as_slice() {
            ["find", ".", rest @ ..] => {
                let name = rest
                    .windows(2)
                    .find(|p| p[0] == "-name" || p[0] == "-iname")
                    .map(|p| p[1])?;
                if rest
                    .iter()
                    .any(|x| x.starts_with('-') && !["-name", "-iname", "-type"].contains(x))
                {
                    return None;
                }
                // `-name` matches a file's name at any depth.
                has_file(&format!("**/{name}"), true)
            }
            ["test" | "[", "-f" | "-e", name, ..] | ["ls", name] => has_file(name, false),
            ["[[" | "[" | "test", "-n", v, ..] | ["[[" | "[" | "test", "!", "-z", v, ..] => {
                !v.is_empty() && *v != "]]" && *v != "]"
            }
            ["[[" | "[" | "test", "-z", v, ..] => v.is_empty() || *v == "]]" || *v == "]",
            ["true"] | [":"] => true,
            _ => return None,
        };
        all &= holds;
    }
    Some(all && !statements.is_empty())
}

/// The shell text a command runs: `sh -c SCRIPT` (the script may be in `args`), else the
/// words themselves, quoted.
fn script_of(command: &[String]) -> String {
    match command {
        [sh, c, rest @ ..]
            if matches!(sh.rsplit('/').next(), Some("sh" | "bash" | "ash" | "zsh"))
                && (c == "-c" || c == "-ec" || c == "-ce") =>
        {
            rest.first().cloned().unwrap_or_default()
        }
        _ => command
            .iter()
            .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// A word as written: literal text and variable references, and whether it was quoted.
#[derive(Clone, Debug, PartialEq)]
enum Piece {
    Text(String),
    /// `$NAME` or `${NAME}`, outside quotes when `split` (its value is split at blanks).
    Var {
        name: String,
        split: bool,
    },
}

type Word = Vec<Piece>;

/// One pipeline, with the commands of its stages.
#[derive(Debug)]
struct Statement {
    commands: Vec<Vec<Word>>,
    /// Its output goes to a file.
    redirects_stdout: bool,
    /// Its output goes to stderr or nowhere (`echo … >&2`).
    silenced: bool,
    text: String,
}

/// Splits a script into statements (at newlines, `;`, `&&`) of pipelines (`|`) of words.
// The macros reset state that the last statement's end does not read again.
#[allow(unused_assignments)]
fn parse(script: &str) -> Result<Vec<Statement>, NotUnderstood> {
    let unsupported = |what: &str| Err(NotUnderstood(format!("the command uses {what}")));
    let chars: Vec<char> = script.chars().collect();
    let mut statements = Vec::new();
    let mut commands: Vec<Vec<Word>> = Vec::new();
    let mut words: Vec<Word> = Vec::new();
    let mut word: Word = Vec::new();
    let mut in_word = false;
    let mut redirects = false;
    let mut silenced = false;
    // Right after `&&`: a newline does not end anything.
    let mut continued = false;
    let mut start = 0;
    let mut i = 0;
    let push_text = |word: &mut Word, c: char| match word.last_mut() {
        Some(Piece::Text(t)) => t.push(c),
        _ => word.push(Piece::Text(c.to_string())),
    };
    macro_rules! end_word {
        () => {
            if in_word {
                words.push(std::mem::take(&mut word));
                in_word = false;
            }
        };
    }
    macro_rules! end_command {
        () => {
            end_word!();
            if !words.is_empty() {
                commands.push(std::mem::take(&mut words));
            }
        };
    }
    macro_rules! end_statement {
        ($at:expr) => {
            end_command!();
            if !commands.is_empty() {
                statements.push(Statement {
                    commands: std::mem::take(&mut commands),
                    redirects_stdout: redirects,
                    silenced,
                    text: chars[start..$at].iter().collect(),
                });
            }
            redirects = false;
            silenced = false;
            start = $at;
        };
    }
    while i < chars.len() {
        let c = chars[i];
        if !c.is_whitespace() && c != '&' {
            continued = false;
        }
        match c {
            '\\' if chars.get(i + 1) == Some(&'\n') => i += 1,
            '\\' => {
                if let Some(&n) = chars.get(i + 1) {
                    push_text(&mut word, n);
                    in_word = true;
                    i += 1;
                }
            }
            '\'' => {
                let Some(end) = chars[i + 1..].iter().position(|&x| x == '\'') else {
                    return unsupported("an unterminated quote");
                };
                word.push(Piece::Text(chars[i + 1..i + 1 + end].iter().collect()));
                in_word = true;
                i += end + 1;
            }
            '"' => {
                in_word = true;
                word.push(Piece::Text(String::new()));
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return unsupported("an unterminated quote"),
                        Some('"') => break,
                        Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`')) => {
                            push_text(&mut word, chars[i + 1]);
                            i += 1;
                        }
                        Some('`') => return unsupported("command substitution"),
                        Some('$') => {
                            let (piece, used) = variable(&chars[i..], false)?;
                            match piece {
                                Some(p) => word.push(p),
                                None => push_text(&mut word, '$'),
                            }
                            i += used - 1;
                        }
                        Some(&x) => push_text(&mut word, x),
                    }
                    i += 1;
                }
            }
            '$' => {
                let (piece, used) = variable(&chars[i..], true)?;
                match piece {
                    Some(p) => word.push(p),
                    None => push_text(&mut word, '$'),
                }
                in_word = true;
                i += used - 1;
            }
            '`' => return unsupported("command substitution"),
            '#' if !in_word => {
                while i + 1 < chars.len() && chars[i + 1] != '\n' {
                    i += 1;
                }
            }
            ' ' | '\t' => {
                end_word!();
            }
            // A line that ends in `|` or `&&` goes on on the next.
            '\n' if !in_word && words.is_empty() && (!commands.is_empty() || continued) => {}
            '\n' | ';' => {
                end_statement!(i);
            }
            '&' if chars.get(i + 1) == Some(&'&') => {
                end_statement!(i);
                continued = true;
                i += 1;
            }
            '|' if chars.get(i + 1) == Some(&'|') => return unsupported("`||`"),
            '|' => {
                end_command!();
            }
            '&' => return unsupported("a background job"),
            '(' | ')' | '{' | '}' if !in_word => return unsupported("a subshell or group"),
            '<' => return unsupported("an input redirection"),
            '>' => {
                // `2>/dev/null`, `2>&1`, `>&2`: where errors go does not matter; stdout to a
                // file does.
                let fd = match word.as_slice() {
                    [Piece::Text(t)] if t == "2" || t == "1" => {
                        let fd = t.clone();
                        word.clear();
                        in_word = false;
                        fd
                    }
                    _ => {
                        end_word!();
                        "1".to_string()
                    }
                };
                if chars.get(i + 1) == Some(&'>') {
                    i += 1;
                }
                while chars.get(i + 1) == Some(&' ') {
                    i += 1;
                }
                let mut target = String::new();
                while let Some(&n) = chars.get(i + 1) {
                    if n.is_whitespace() || n == ';' || n == '|' || n == '&' && !target.is_empty() {
                        break;
                    }
                    target.push(n);
                    i += 1;
                }
                if fd == "1" {
                    match target.as_str() {
                        "&2" | "/dev/stderr" | "/dev/null" => silenced = true,
                        _ => redirects = true,
                    }
                }
            }
            _ => {
                push_text(&mut word, c);
                in_word = true;
            }
        }
        i += 1;
    }
    end_statement!(chars.len());
    Ok(statements)
}

/// A `$` reference at the start of `s`: the piece (none for a lone `$`) and how many
/// characters it took.
fn variable(s: &[char], split: bool) -> Result<(Option<Piece>, usize), NotUnderstood> {
    match s.get(1) {
        Some('{') => {
            let Some(end) = s.iter().position(|&c| c == '}') else {
                return Err(NotUnderstood("the command uses an unterminated ${".into()));
            };
            let name: String = s[2..end].iter().collect();
            if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || name.is_empty() {
                return Err(NotUnderstood(format!("the command uses ${{{name}}}")));
            }
            Ok((Some(Piece::Var { name, split }), end + 1))
        }
        Some('(') => Err(NotUnderstood(
            "the command uses command substitution".into(),
        )),
        Some('$') => Ok((Some(Piece::Text("$".into())), 2)),
        Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
            let n = s[1..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                .count();
            Ok((
                Some(Piece::Var {
                    name: s[1..1 + n].iter().collect(),
                    split,
                }),
                1 + n,
            ))
        }
        _ => Ok((None, 1)),
    }
}

/// A command's words with variables expanded; an unquoted variable is split at blanks and
/// disappears when empty, as the shell does.
fn expand_words(
    cmd: &[Word],
    env: &BTreeMap<String, String>,
    unknown: &mut BTreeSet<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    for word in cmd {
        let mut fields: Vec<String> = vec![String::new()];
        let mut quoted_or_text = false;
        for piece in word {
            match piece {
                Piece::Text(t) => {
                    fields.last_mut().expect("one field").push_str(t);
                    quoted_or_text = true;
                }
                Piece::Var { name, split } => {
                    let value = match env.get(name) {
                        Some(v) => v.clone(),
                        None => {
                            unknown.insert(name.clone());
                            String::new()
                        }
                    };
                    if !split {
                        fields.last_mut().expect("one field").push_str(&value);
                        quoted_or_text = true;
                        continue;
                    }
                    let mut parts = value.split_whitespace();
                    if let Some(p) = parts.next() {
                        if value.starts_with(char::is_whitespace)
                            && !fields.last().expect("one field").is_empty()
                        {
                            fields.push(String::new());
                        }
                        fields.last_mut().expect("one field").push_str(p);
                    }
                    for p in parts {
                        fields.push(p.to_string());
                    }
                    if value.ends_with(char::is_whitespace) && !value.trim().is_empty() {
                        fields.push(String::new());
                    }
                }
            }
        }
        for (i, f) in fields.iter().enumerate() {
            if !f.is_empty() || (quoted_or_text && i == 0 && fields.len() == 1) {
                out.push(f.clone());
            }
        }
    }
    out
}

fn is_assignment(w: &str) -> bool {
    w.split_once('=').is_some_and(|(k, _)| {
        !k.is_empty()
            && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !k.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// Commands that prepare the checkout or talk to the operator, not write manifests.
fn is_preparation(words: &[String]) -> bool {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    matches!(
        w.as_slice(),
        ["set", ..]
            | ["true"]
            | [":"]
            | ["helm", "dependency" | "dep", ..]
            | ["helm", "repo", ..]
            | ["helm", "registry", "login", ..]
            | ["mkdir", ..]
            | ["rm", ..]
    )
}

/// The directory `to` names from `from` (both relative to the Application's path); leaving
/// the path is not followed.
fn join(from: &str, to: &str) -> Result<String, NotUnderstood> {
    if to.starts_with('/') || to.starts_with('~') {
        return Err(NotUnderstood(format!(
            "the command reads {to}, outside the source"
        )));
    }
    let joined = crate::template::go_path_clean(&format!("{from}/{to}"));
    if joined == ".." || joined.starts_with("../") {
        return Err(NotUnderstood(format!(
            "the command reads {to}, outside the source"
        )));
    }
    Ok(joined)
}

/// The generator a pipeline's first command is, and the directory it reads (relative to
/// the current one).
fn generator(words: &[String]) -> Result<(Generator, String), NotUnderstood> {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    match w.as_slice() {
        ["kustomize", "build", rest @ ..] | ["kubectl", "kustomize", rest @ ..] => {
            let (flags, dirs) = split_flags(rest, KUSTOMIZE_VALUE_FLAGS);
            match dirs.as_slice() {
                [] => Ok((Generator::Kustomize(flags), ".".into())),
                [d] => Ok((Generator::Kustomize(flags), d.clone())),
                _ => Err(NotUnderstood(
                    "kustomize build is given several directories".into(),
                )),
            }
        }
        ["helm", "template", rest @ ..] => helm_template(rest, false),
        ["helm", "secrets", "template", rest @ ..] | ["helm-secrets", "template", rest @ ..] => {
            helm_template(rest, true)
        }
        [tool, "generate", rest @ ..] if SECRET_TOOLS.contains(tool) => {
            let (_, dirs) = split_flags(rest, &["-s", "--secret-name", "-c", "--config-path"]);
            match dirs.as_slice() {
                [d] if d != "-" => Ok((
                    Generator::Directory {
                        tool: tool.to_string(),
                    },
                    d.clone(),
                )),
                _ => Err(NotUnderstood(format!(
                    "`{tool} generate` reads its input from stdin"
                ))),
            }
        }
        _ => Err(NotUnderstood(format!(
            "kdelta does not know the command `{}`",
            w.first().copied().unwrap_or_default()
        ))),
    }
}

/// kustomize build's flags that take a value.
const KUSTOMIZE_VALUE_FLAGS: &[&str] = &[
    "--load-restrictor",
    "--load_restrictor",
    "--reorder",
    "--helm-command",
    "--helm-kube-version",
    "--helm-api-versions",
    "--mount",
    "--env",
    "-e",
    "--output",
    "-o",
];

/// `args` split into flags (with their values) and positional arguments.
fn split_flags(args: &[&str], value_flags: &[&str]) -> (Vec<String>, Vec<String>) {
    let mut flags = Vec::new();
    let mut positional = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        if a.starts_with('-') && a != "-" {
            flags.push(a.to_string());
            if !a.contains('=') && value_flags.contains(&a) {
                if let Some(v) = args.get(i + 1) {
                    flags.push(v.to_string());
                    i += 1;
                }
            }
        } else {
            positional.push(a.to_string());
        }
        i += 1;
    }
    (flags, positional)
}

/// `helm template [NAME] [CHART] [flags]` as an Argo CD helm source block: what plain
/// `helm template` does by default (release `release-name`, namespace `default`, no
/// `crds/`) is written out.
fn helm_template(args: &[&str], secrets: bool) -> Result<(Generator, String), NotUnderstood> {
    const VALUE_FLAGS: &[&str] = &[
        "-f",
        "--values",
        "--set",
        "--set-string",
        "--set-file",
        "--set-json",
        "--set-literal",
        "-n",
        "--namespace",
        "--name-template",
        "--kube-version",
        "-a",
        "--api-versions",
        "--version",
        "--repo",
        "--post-renderer",
        "--output-dir",
        "-s",
        "--show-only",
    ];
    let (flags, positional) = split_flags(args, VALUE_FLAGS);
    let (name, chart) = match positional.as_slice() {
        [chart] => (None, chart.clone()),
        [name, chart] => (Some(name.clone()), chart.clone()),
        [] => (None, ".".to_string()),
        _ => {
            return Err(NotUnderstood(
                "helm template is given more than two arguments".into(),
            ))
        }
    };
    let mut o = serde_json::json!({
        "releaseName": name.unwrap_or_else(|| "release-name".into()),
        "namespace": "default",
        "skipCrds": true,
    });
    let mut value_files = Vec::new();
    let mut parameters = Vec::new();
    let mut file_parameters = Vec::new();
    let mut api_versions = Vec::new();
    let mut i = 0;
    while i < flags.len() {
        let (flag, inline) = match flags[i].split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (flags[i].clone(), None),
        };
        let mut value = || -> String {
            let v = inline.clone().unwrap_or_else(|| {
                i += 1;
                flags.get(i).cloned().unwrap_or_default()
            });
            // The cluster's version or APIs, which kdelta does not know: its defaults apply.
            if v.starts_with(CLUSTER_VALUE) {
                String::new()
            } else {
                v
            }
        };
        match flag.as_str() {
            "-f" | "--values" => value_files.extend(
                value()
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            ),
            "--set" | "--set-string" => {
                let force = flag == "--set-string";
                for kv in value().split(',') {
                    if let Some((k, v)) = kv.split_once('=') {
                        parameters
                            .push(serde_json::json!({"name": k, "value": v, "forceString": force}));
                    }
                }
            }
            "--set-file" => {
                for kv in value().split(',') {
                    if let Some((k, v)) = kv.split_once('=') {
                        file_parameters.push(serde_json::json!({"name": k, "path": v}));
                    }
                }
            }
            "-n" | "--namespace" => o["namespace"] = value().into(),
            "--name-template" => o["releaseName"] = value().into(),
            "--kube-version" => {
                let v = value();
                if !v.is_empty() {
                    o["kubeVersion"] = v.into();
                }
            }
            "-a" | "--api-versions" => api_versions.extend(
                value()
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            ),
            "--include-crds" => o["skipCrds"] = false.into(),
            "--skip-crds" => o["skipCrds"] = true.into(),
            "--skip-tests" => o["skipTests"] = true.into(),
            "--skip-schema-validation" => o["skipSchemaValidation"] = true.into(),
            "--release-name"
            | "--debug"
            | "--dependency-update"
            | "--dry-run"
            | "--validate"
            | "--no-hooks"
            | "--disable-openapi-validation"
            | "--pass-credentials" => {}
            "--set-json" | "--set-literal" | "--post-renderer" | "--repo" | "--version"
            | "--output-dir" | "-s" | "--show-only" | "-g" | "--generate-name" => {
                return Err(NotUnderstood(format!(
                    "helm template {flag} is not rendered natively"
                )))
            }
            other => return Err(NotUnderstood(format!("helm template {other} is not known"))),
        }
        i += 1;
    }
    if !value_files.is_empty() {
        o["valueFiles"] = value_files.into();
    }
    if !parameters.is_empty() {
        o["parameters"] = parameters.into();
    }
    if !file_parameters.is_empty() {
        o["fileParameters"] = file_parameters.into();
    }
    if !api_versions.is_empty() {
        o["apiVersions"] = api_versions.into();
    }
    Ok((
        Generator::Helm {
            options: o,
            secrets,
        },
        chart,
    ))
}

/// What a pipeline stage after the generator does; `None` for one that passes the
/// manifests on unchanged (`cat`, `tee /dev/stderr`).
fn filter(words: &[String]) -> Option<Filter> {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    match w.as_slice() {
        ["cat"] | ["cat", "-"] | ["tee", "/dev/stderr" | "/dev/null"] => None,
        ["envsubst"] => Some(Filter::Envsubst(None)),
        ["envsubst", format] => Some(Filter::Envsubst(Some(
            format
                .split(|c: char| {
                    !(c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '{' || c == '}')
                })
                .filter_map(|v| {
                    let v = v.strip_prefix('$')?;
                    Some(v.trim_start_matches('{').trim_end_matches('}').to_string())
                })
                .collect(),
        ))),
        [tool, ..] if SECRET_TOOLS.contains(tool) => {
            Some(Filter::SecretPlaceholders(tool.to_string()))
        }
        _ => Some(Filter::Unknown(words.join(" "))),
    }
}

/// `envsubst` over `text`: `$NAME` and `${NAME}` replaced by their value (unset ones by
/// nothing), or only the variables `only` lists. Gives the names it found unset.
pub fn envsubst(
    text: &str,
    env: &BTreeMap<String, String>,
    only: Option<&[String]>,
) -> (String, BTreeSet<String>) {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut unset = BTreeSet::new();
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        if b[i] != b'$' {
            i += 1;
            continue;
        }
        let (name, end) = if b.get(i + 1) == Some(&b'{') {
            match text[i + 2..].find('}') {
                Some(n) => (&text[i + 2..i + 2 + n], i + 3 + n),
                None => ("", i + 1),
            }
        } else {
            let n = text[i + 1..]
                .bytes()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
                .count();
            (&text[i + 1..i + 1 + n], i + 1 + n)
        };
        let valid = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
        if !valid || only.is_some_and(|o| !o.iter().any(|v| v == name)) {
            i += 1;
            continue;
        }
        out.push_str(&text[copied..i]);
        match env.get(name) {
            Some(v) => out.push_str(v),
            None => {
                unset.insert(name.to_string());
            }
        }
        i = end;
        copied = end;
    }
    out.push_str(&text[copied..]);
    (out, unset)
}

/// Whether a plugin's `fileName`/`find.glob` discovery matches: `fileName` globs in the
/// directory itself, `find.glob` at any depth below it.
pub fn glob_discovers(
    pattern: &str,
    files_below: &[RepoPath],
    dir: &RepoPath,
    recursive: bool,
) -> bool {
    let pattern = pattern.trim_start_matches("./");
    files_below.iter().any(|f| {
        let Some(rel) = f
            .as_str()
            .strip_prefix(dir.as_str())
            .map(|r| r.trim_start_matches('/'))
        else {
            return false;
        };
        let rel = if dir.as_str().is_empty() || dir.as_str() == "." {
            f.as_str()
        } else {
            rel
        };
        if recursive {
            crate::helm::glob::doublestar(pattern, rel)
        } else {
            !rel.contains('/') && super::settings::glob_match(pattern, rel)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> BTreeMap<String, String> {
        [
            ("ARGOCD_APP_NAME", "web"),
            ("ARGOCD_APP_NAMESPACE", "prod"),
            ("ARGOCD_ENV_HELM_ARGS", "-f values-prod.yaml --set a=b"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn kustomize_with_helm_and_envsubst() {
        let r = recipe(&sh("kustomize build --enable-helm . | envsubst"), &env()).unwrap();
        assert_eq!(r.dir, ".");
        assert_eq!(
            r.generator,
            Generator::Kustomize(vec!["--enable-helm".into()])
        );
        assert_eq!(r.filters, vec![Filter::Envsubst(None)]);
        // The command and its args given apart, as the argo-cd chart's values write them.
        let r = recipe(
            &[
                "sh".into(),
                "-c".into(),
                "kustomize build --enable-helm".into(),
            ],
            &env(),
        )
        .unwrap();
        assert_eq!(
            r.generator,
            Generator::Kustomize(vec!["--enable-helm".into()])
        );
    }

    #[test]
    fn helm_template_with_app_variables_and_a_vault_filter() {
        let r = recipe(
            &sh("helm dependency build >/dev/null\nhelm template $ARGOCD_APP_NAME -n $ARGOCD_APP_NAMESPACE ${ARGOCD_ENV_HELM_ARGS} --include-crds . |\n  argocd-vault-plugin generate -s vault-configuration -"),
            &env(),
        )
        .unwrap();
        let Generator::Helm { options, secrets } = &r.generator else {
            panic!("{r:?}")
        };
        assert!(!secrets);
        assert_eq!(options["releaseName"], "web");
        assert_eq!(options["namespace"], "prod");
        assert_eq!(options["skipCrds"], false);
        assert_eq!(
            options["valueFiles"],
            serde_json::json!(["values-prod.yaml"])
        );
        assert_eq!(options["parameters"][0]["name"], "a");
        assert_eq!(
            r.filters,
            vec![Filter::SecretPlaceholders("argocd-vault-plugin".into())]
        );
    }

    #[test]
    fn cd_assignments_and_unknown_variables() {
        let r = recipe(
            &sh("set -e\nexport OVERLAY=prod\ncd overlays/$OVERLAY && kustomize build . --load-restrictor=LoadRestrictionsNone | sed s/a/b/ | argocd-secret-replacer secret --mount /x"),
            &env(),
        )
        .unwrap();
        assert_eq!(r.dir, "overlays/prod");
        assert_eq!(r.filters.len(), 2);
        assert_eq!(r.filters[0], Filter::Unknown("sed s/a/b/".into()));
        let r = recipe(&sh("helm template . --kube-version $KUBE_VERSION --api-versions $KUBE_API_VERSIONS -f $EXTRA"), &env()).unwrap();
        assert_eq!(r.unknown_vars, ["EXTRA".to_string()].into());
        let Generator::Helm { options, .. } = &r.generator else {
            panic!()
        };
        // The cluster's version and APIs are kdelta's defaults.
        assert!(
            options.get("kubeVersion").is_none() && options.get("apiVersions").is_none(),
            "{options}"
        );
    }

    #[test]
    fn what_is_not_understood_says_why() {
        for (script, why) in [
            (
                "echo \"{\\\"kind\\\": \\\"ConfigMap\\\"}\"",
                "kdelta does not know the command `echo`",
            ),
            (
                "kustomize build . > all.yaml && cat all.yaml",
                "writes to a file",
            ),
            ("kustomize build $(pwd)", "command substitution"),
            ("cd .. && kustomize build .", "outside the source"),
            (
                "kustomize build a; kustomize build b",
                "more than one command",
            ),
            ("tk show environments/prod", "`tk`"),
        ] {
            let e = recipe(&sh(script), &env()).unwrap_err();
            assert!(e.0.contains(why), "{script}: {e:?}");
        }
    }

    #[test]
    fn hostile_commands_are_refused_or_read_never_a_panic() {
        let nasty = [
            "",
            "$",
            "${",
            "${}",
            "${a",
            "'",
            "\"",
            "\"$",
            "\\",
            "|",
            "| envsubst",
            "&&",
            ";;",
            ">",
            "2>",
            "kustomize build >",
            "cd",
            "cd /",
            "cd ../..",
            "$(",
            "`",
            "a=1",
            "export",
            "helm template -f",
            "helm template --set",
            "helm template a b c",
            "kustomize build a b",
            "kustomize build --load-restrictor",
            "\n\n",
            "# only a comment",
            "helm template \"é\" $ARGOCD_ENV_Ü",
            "find . -name",
            "[[ -n ]]",
            "{ a; }",
        ];
        for script in nasty {
            let _ = recipe(&sh(script), &env());
            let _ = discovers(&sh(script), &env(), &|_, _| true);
        }
    }

    #[test]
    fn find_commands_in_discovery() {
        let has = |name: &str, recursive: bool| name == "**/kustomization.yaml" && recursive;
        let mut e = env();
        let cmd = sh("[[ ! -z $ARGOCD_ENV_SECRET_PROVIDER ]] && find . -name 'kustomization.yaml'");
        assert_eq!(discovers(&cmd, &e, &has), Some(false));
        e.insert("ARGOCD_ENV_SECRET_PROVIDER".into(), "x".into());
        assert_eq!(discovers(&cmd, &e, &has), Some(true));
        let argv: Vec<String> = ["find", ".", "-name", "Chart.yaml"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(discovers(&argv, &e, &has), Some(false));
        assert_eq!(
            discovers(&sh("find . -name '*.yml' | xargs grep avp"), &e, &has),
            None
        );
    }

    #[test]
    fn envsubst_like_gnu_gettext() {
        let e = env();
        let (out, unset) = envsubst(
            "a: $ARGOCD_APP_NAME\nb: ${ARGOCD_APP_NAMESPACE}-x\nc: $NOPE\nd: $5 $ {x}",
            &e,
            None,
        );
        assert_eq!(out, "a: web\nb: prod-x\nc: \nd: $5 $ {x}");
        assert_eq!(unset, ["NOPE".to_string()].into());
        let only = vec!["ARGOCD_APP_NAME".to_string()];
        let (out, _) = envsubst("$ARGOCD_APP_NAME $ARGOCD_APP_NAMESPACE", &e, Some(&only));
        assert_eq!(out, "web $ARGOCD_APP_NAMESPACE");
    }
}
