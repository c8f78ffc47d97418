//! configMapGenerator and secretGenerator (kustomize's ConfigMapGenerator/SecretGenerator
//! plugins with the kv loader): literals, files, env files, options, behavior.

use super::error::KError;
use super::loader::Loader;
use super::res::{anno, Res};
use super::types::{GeneratorArgs, GeneratorOptions};
use crate::finding::rules;
use crate::resource::Origin;
use crate::yaml::{Node, NodeKind, Scalar, ScalarStyle};
use base64::Engine;

/// Which generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenKind {
    ConfigMap,
    Secret,
}

/// A warning about a generator: its rule and message.
pub type Warning = (crate::finding::Rule, String);

/// Generates one object from its args (global `generatorOptions` already merged in). Keys the
/// API server will reject come back as warnings: kustomize's key validator accepts everything.
pub fn generate(
    ldr: &Loader,
    kind: GenKind,
    args: &GeneratorArgs,
    options: Option<&GeneratorOptions>,
    origin: Origin,
    warnings: &mut Vec<Warning>,
) -> Result<Res, KError> {
    let kind_name = match kind {
        GenKind::ConfigMap => "ConfigMap",
        GenKind::Secret => "Secret",
    };
    if args.name.is_empty() {
        return Err(KError::new(
            rules::KUSTOMIZE_GENERATOR_INVALID,
            "a configmap must have a name",
        ));
    }
    let mut node = Node::map();
    node.set("apiVersion", Node::plain("v1"));
    node.set("kind", Node::plain(kind_name));
    node.map_at("metadata")
        .set("name", Node::string(args.name.clone()));
    if !args.namespace.is_empty() {
        node.map_at("metadata")
            .set("namespace", Node::string(args.namespace.clone()));
    }
    if kind == GenKind::Secret {
        let t = if args.secret_type.is_empty() {
            "Opaque"
        } else {
            &args.secret_type
        };
        node.set("type", Node::string(t));
    }
    let pairs = load_pairs(ldr, args, warnings)?;
    let mut data: Vec<(String, Vec<u8>)> = Vec::new();
    for (k, v) in pairs {
        if !is_valid_key(&k) {
            warnings.push((rules::KUSTOMIZE_GENERATOR_INVALID_KEY, format!("\"{k}\" is not a valid key name for a {kind_name}: a valid key must consist of alphanumeric characters, '-', '_' or '.'; the API server will reject the object")));
        }
        if data.iter().any(|(x, _)| *x == k) {
            return Err(KError::new(
                rules::KUSTOMIZE_GENERATOR_DUPLICATE_KEY,
                format!("configmap {} illegally repeats the key `{k}`", args.name),
            ));
        }
        data.push((k, v));
    }
    data.sort_by(|a, b| a.0.cmp(&b.0));
    // A Secret always has `data`, even empty (kyaml's LoadMapIntoSecretData creates it first);
    // a ConfigMap only gets the fields its values need.
    if kind == GenKind::Secret {
        node.map_at("data");
    }
    for (k, v) in data {
        let (field, value) = match kind {
            GenKind::ConfigMap => match String::from_utf8(v) {
                Ok(s) => ("data", s),
                Err(e) => ("binaryData", encode_base64_lines(e.as_bytes())),
            },
            GenKind::Secret => ("data", encode_base64_lines(&v)),
        };
        let style = if value.contains('\n') {
            ScalarStyle::Literal
        } else {
            ScalarStyle::Plain
        };
        node.map_at(field).set(
            &k,
            Node::new(NodeKind::Scalar(Scalar {
                text: value,
                style,
                tag: Some("!!str".into()),
            })),
        );
    }
    let mut res = Res::new(node, origin, ldr.schema.clone());
    if let Some(opts) = options {
        let mut labels = res.labels();
        if let Some(l) = &opts.labels {
            labels.extend(l.clone());
        }
        res.set_labels(&labels);
        let mut annotations = res.annotations();
        if let Some(a) = &opts.annotations {
            annotations.extend(a.clone());
        }
        res.set_annotations(&annotations);
        if opts.immutable {
            res.node.set(
                "immutable",
                Node::new(NodeKind::Scalar(Scalar {
                    text: "true".into(),
                    style: ScalarStyle::Plain,
                    tag: Some("!!bool".into()),
                })),
            );
        }
    }
    // kustomize Factory.makeOne: hash unless disabled, and remember the behavior.
    if !options.is_some_and(|o| o.disable_name_suffix_hash) {
        res.set_annotation(anno::NEEDS_HASH, "enabled");
    }
    let behavior = match args.behavior.as_str() {
        "" => "create",
        b @ ("create" | "merge" | "replace") => b,
        other => {
            // kustomize reads an unknown behavior as unspecified, which acts like create.
            warnings.push((
                rules::KUSTOMIZE_GENERATOR_BEHAVIOR,
                format!("unknown generator behavior '{other}' is read as create; use create, merge or replace"),
            ));
            "create"
        }
    };
    res.set_annotation(anno::GEN_BEHAVIOR, behavior);
    if !args.merge_values.is_empty() && behavior != "merge" {
        return Err(KError::new(
            rules::KUSTOMIZE_GENERATOR_MERGE_VALUES,
            format!(
                "mergeValues needs behavior: merge (generator '{}' has '{behavior}')",
                args.name
            ),
        ));
    }
    res.merge_values = args.merge_values.clone();
    Ok(res)
}

/// kustomize's `encodeBase64`: standard base64 broken into 70-character lines (each followed by
/// a newline) when longer than one line.
pub fn encode_base64_lines(data: &[u8]) -> String {
    let enc = base64::engine::general_purpose::STANDARD.encode(data);
    let lines = enc.len() / 70 + 1;
    if lines <= 1 {
        return enc;
    }
    let mut out = String::with_capacity(enc.len() + lines);
    for chunk in enc.as_bytes().chunks(70) {
        out.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
        out.push('\n');
    }
    out
}

/// Key/value pairs in kustomize's order: env files, then literals, then files. Values are bytes:
/// a file that is not UTF-8 becomes `binaryData` in a ConfigMap.
fn load_pairs(
    ldr: &Loader,
    args: &GeneratorArgs,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<(String, Vec<u8>)>, KError> {
    let mut out = Vec::new();
    let mut envs = args.env_sources.clone();
    if !args.env_source.is_empty() {
        envs.push(args.env_source.clone());
    }
    for p in &envs {
        let bytes = ldr
            .load(p)
            .map_err(|e| e.context(format!("env source files: [{}]", envs.join(" "))))?
            .bytes;
        out.extend(
            env_pairs(&bytes, warnings)?
                .into_iter()
                .map(|(k, v)| (k, v.into_bytes())),
        );
    }
    for s in &args.literal_sources {
        let (k, v) = parse_literal(s)?;
        out.push((k, v.into_bytes()));
    }
    for s in &args.file_sources {
        let (key, path) = parse_file_source(s)?;
        let bytes = ldr
            .load(&path)
            .map_err(|e| e.context(format!("file sources: [{}]", args.file_sources.join(" "))))?
            .bytes;
        out.push((key, bytes.to_vec()));
    }
    Ok(out)
}

/// kustomize's env file reader. A line without `=` takes its value from kustomize's own
/// environment; kdelta leaves it empty and warns, so that CI secrets never reach a report.
fn env_pairs(content: &[u8], warnings: &mut Vec<Warning>) -> Result<Vec<(String, String)>, KError> {
    let mut out = Vec::new();
    let text = std::str::from_utf8(content).map_err(|_| {
        KError::new(
            rules::KUSTOMIZE_GENERATOR_INVALID,
            "env file has invalid utf8 bytes",
        )
    })?;
    for (i, raw) in text.split('\n').enumerate() {
        let mut line = raw.strip_suffix('\r').unwrap_or(raw);
        if i == 0 {
            line = line.strip_prefix('\u{feff}').unwrap_or(line);
        }
        let line = line.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k, v),
            None => {
                warnings.push((rules::KUSTOMIZE_GENERATOR_INVALID_KEY, format!("\"{line}\" has no value: kustomize would read it from the environment it runs in; kdelta renders it empty")));
                (line, "")
            }
        };
        out.push((key.to_string(), value.to_string()));
    }
    Ok(out)
}

/// Kubernetes' `IsConfigMapKey`.
fn is_valid_key(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 253
        && k != "."
        && k != ".."
        && !k.starts_with("..")
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
}

fn parse_literal(s: &str) -> Result<(String, String), KError> {
    let invalid = || {
        KError::new(
            rules::KUSTOMIZE_GENERATOR_INVALID,
            format!("invalid literal source {s}, expected key=value"),
        )
    };
    if s.starts_with('=') {
        return Err(invalid());
    }
    let (k, v) = s.split_once('=').ok_or_else(invalid)?;
    Ok((k.to_string(), remove_quotes(v).to_string()))
}

fn remove_quotes(s: &str) -> &str {
    let b = s.as_bytes();
    if b.len() >= 2 && b[0] == b[b.len() - 1] && (b[0] == b'"' || b[0] == b'\'') {
        &s[1..s.len() - 1]
    } else {
        s
    }
}

/// kustomize `ParseFileSource`: `path` (key is the file name) or `key=path`.
fn parse_file_source(s: &str) -> Result<(String, String), KError> {
    let n = s.matches('=').count();
    let err = |m: String| Err(KError::new(rules::KUSTOMIZE_GENERATOR_INVALID, m));
    match n {
        0 => Ok((s.rsplit('/').next().unwrap_or(s).to_string(), s.to_string())),
        1 if s.starts_with('=') => err(format!(
            "missing key name for file path \"{}\" in source \"{s}\"",
            &s[1..]
        )),
        1 if s.ends_with('=') => err(format!(
            "missing file path for key name \"{}\" in source \"{s}\"",
            &s[..s.len() - 1]
        )),
        1 => {
            let (k, p) = s.split_once('=').expect("one '=' was counted");
            Ok((k.to_string(), p.to_string()))
        }
        _ => err(format!("source \"{s}\" key name or file path contains '='")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_file_sources() {
        assert_eq!(parse_literal("a=\"b\"").unwrap(), ("a".into(), "b".into()));
        assert_eq!(parse_literal("a=b=c").unwrap(), ("a".into(), "b=c".into()));
        assert!(parse_literal("=x").is_err());
        assert!(parse_literal("novalue").is_err());
        assert_eq!(
            parse_file_source("dir/app.conf").unwrap(),
            ("app.conf".into(), "dir/app.conf".into())
        );
        assert_eq!(
            parse_file_source("k=dir/app.conf").unwrap(),
            ("k".into(), "dir/app.conf".into())
        );
        assert!(parse_file_source("a=b=c").is_err());
    }

    #[test]
    fn env_files() {
        let mut warnings = Vec::new();
        let p = env_pairs(b"\xef\xbb\xbfA=1\n# c\n\n  B=x=y\nC\n", &mut warnings).unwrap();
        assert_eq!(
            p,
            vec![
                ("A".into(), "1".into()),
                ("B".into(), "x=y".into()),
                ("C".into(), "".into())
            ]
        );
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].1.contains("environment"), "{warnings:?}");
        // kustomize v5.5.0 validates nothing: the key is kept (generate warns about it).
        let mut warnings = Vec::new();
        let p = env_pairs(b"export K=v\n", &mut warnings).unwrap();
        assert_eq!(p, vec![("export K".into(), "v".into())]);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(env_pairs(b"\xff=1\n", &mut Vec::new()).is_err());
    }

    #[test]
    fn base64_lines() {
        assert_eq!(encode_base64_lines(b"hi"), "aGk=");
        let long = encode_base64_lines(&[b'x'; 60]);
        assert!(long.ends_with('\n') && long.lines().all(|l| l.len() <= 70));
    }
}
