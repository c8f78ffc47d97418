//! Accumulation: resources (files and directories), bases and components, each directory
//! built as its own kustomization and merged in.

use super::{Acc, Builder, Kt};
use crate::fetch::Unavailable;
use crate::finding::rules;
use crate::kustomize::error::KError;
use crate::kustomize::loader::Loader;
use crate::kustomize::origin::{self, Origin};
use crate::kustomize::res::Res;
use crate::kustomize::resmap::ResMap;
use crate::resource::Origin as SourceOrigin;
use crate::source::{EntryKind, RepoPath};
use crate::yaml::{self, Dialect, Node, NodeKind, ParseOptions};

impl Builder {
    pub(super) fn accumulate_resources(&mut self, kt: &Kt, acc: Acc) -> Result<Acc, KError> {
        let entries: Vec<(usize, &str)> =
            kt.k.resources
                .iter()
                .map(String::as_str)
                .enumerate()
                .collect();
        self.accumulate_paths(kt, acc, "resources", &entries)
    }

    /// Accumulates files and kustomization directories listed under `field` (resources, or the
    /// plugin configs of generators/transformers).
    pub fn accumulate_paths(
        &mut self,
        kt: &Kt,
        mut acc: Acc,
        field: &str,
        entries: &[(usize, &str)],
    ) -> Result<Acc, KError> {
        // The ids of what is accumulated, kept up to date while files are appended one after
        // the other (computing them anew for each file made N files cost N²); dropped when a
        // directory or remote input changes the accumulation wholesale.
        let mut ids: Option<crate::kustomize::resmap::IdSet> = None;
        for &(i, path) in entries {
            let at = |e: KError| kt.err_at(e, field, Some(i));
            if crate::kustomize::loader::is_remote_repo(path) {
                ids = None;
                acc = self.accumulate_remote(kt, path, acc, &at, false)?;
                continue;
            }
            if crate::kustomize::loader::is_remote_file(path) {
                ids = None;
                acc = self.accumulate_remote_file(kt, path, acc, &at)?;
                continue;
            }
            let resolved = kt.ldr.resolve(path).map_err(|e| {
                if !path.starts_with('/') || !kt.ldr.root_only() {
                    return at(e);
                }
                // kustomize's accumulateResources tries an entry as a file (the load restrictor
                // refuses an absolute path), then as a directory (`loader.New` refuses an
                // absolute root), and reports both.
                let from = format!("accumulating resources from '{path}'");
                let cause = e.message.clone();
                at(KError {
                    message: format!(
                        "accumulation err='{from}: {cause}': new root '{path}' cannot be absolute"
                    ),
                    ..e
                }
                .with_cause(cause, &[&from]))
            })?;
            match kt.ldr.files.kind(&resolved) {
                EntryKind::Dir => {
                    ids = None;
                    let child = kt.ldr.child(path).map_err(|e| {
                        at(e.context_said(
                            format!("accumulation err='accumulating resources from '{path}''"),
                            format!("accumulating resources from '{path}'"),
                        ))
                    })?;
                    acc = self
                        .accumulate_directory(kt, path, acc, child, false)
                        .map_err(|e| {
                            at(e.context_said(
                                format!("accumulation err='accumulating resources from '{path}''"),
                                format!("accumulating resources from '{path}'"),
                            ))
                        })?;
                }
                EntryKind::Missing => {
                    if let Some(e) = kt.ldr.unusable(&resolved) {
                        return Err(at(
                            e.context(format!("accumulating resources from '{path}'"))
                        ));
                    }
                    return Err(at(KError::new(
                        rules::KUSTOMIZE_FILE_NOT_FOUND,
                        format!("accumulation err='accumulating resources from '{path}': '{resolved}': no such file or directory': must build at directory: not a valid directory"),
                    )
                    .with_cause(
                        format!("{resolved}: no such file or directory (listed in {field})"),
                        &[&format!("accumulating resources from '{path}'")],
                    )));
                }
                _ => {
                    let mut rm = self.load_resources(kt, path).map_err(|e| {
                        at(e.context(format!("accumulating resources from '{path}'")))
                    })?;
                    if let Some(prefix) = &kt.origin {
                        let o = Origin {
                            path: origin::join(prefix, path),
                            ..Origin::default()
                        };
                        origin::annotate_all(&mut rm, &o);
                    }
                    let known = ids.get_or_insert_with(|| acc.rm.ids());
                    for r in rm.list {
                        acc.rm.append_to(r, known).map_err(|e| {
                            at(e.context(format!("merging resources from '{path}'")))
                        })?;
                    }
                }
            }
        }
        Ok(acc)
    }

    /// A remote input (`what`: a file, a target) the fetch store does not give: not cached, a
    /// notice; a failed fetch, an error. Either way the output is incomplete and the build
    /// goes on without it.
    fn unavailable(
        &mut self,
        path: &str,
        what: &str,
        e: Unavailable,
        at: &dyn Fn(KError) -> KError,
    ) {
        let why = e.incomplete();
        let (error, severity) = match e {
            Unavailable::NotCached(_) => (KError::remote(path), crate::finding::Severity::Notice),
            Unavailable::Failed(e) => (
                KError::new(
                    rules::FETCH_FAILED,
                    format!(
                        "remote {what} '{}': {e}",
                        crate::fetch::url::redact_text(path)
                    ),
                ),
                crate::finding::Severity::Error,
            ),
        };
        let mut f = at(error).into_finding().incomplete(why);
        f.severity = severity;
        self.findings.push(f);
    }

    /// A remote file (`https://github.com/org/repo/releases/download/v1/install.yaml`): its
    /// body from the fetch store, read as a resource file of this kustomization. Not cached:
    /// a notice, and the build goes on without it; a failed fetch: an error finding.
    fn accumulate_remote_file(
        &mut self,
        kt: &Kt,
        path: &str,
        mut acc: Acc,
        at: &dyn Fn(KError) -> KError,
    ) -> Result<Acc, KError> {
        let bytes = match kt.ldr.files.remote_file(path) {
            Ok(b) => b,
            Err(e) => {
                self.unavailable(path, "file", e, at);
                return Ok(acc);
            }
        };
        let mut rm = resources_from_bytes(kt, kt.ldr.root(), path, &bytes)
            .map_err(|e| at(e.context(format!("accumulating resources from '{path}'"))))?;
        if let Some(prefix) = &kt.origin {
            let o = Origin {
                path: origin::join(prefix, path),
                ..Origin::default()
            };
            origin::annotate_all(&mut rm, &o);
        }
        acc.rm
            .append_all(rm)
            .map_err(|e| at(e.context(format!("merging resources from '{path}'"))))?;
        Ok(acc)
    }

    /// A remote base or component (`https://github.com/org/repo//base?ref=v1`): its commit
    /// from the fetch store, built as a directory of that repository. Not cached: a notice,
    /// and the build goes on without it (as for any remote input); a failed fetch: an error
    /// finding.
    fn accumulate_remote(
        &mut self,
        kt: &Kt,
        path: &str,
        acc: Acc,
        at: &dyn Fn(KError) -> KError,
        is_component: bool,
    ) -> Result<Acc, KError> {
        let spec = crate::kustomize::remote::parse(path)
            .map_err(|m| at(KError::new(rules::KUSTOMIZE_REMOTE_RESOURCE, m.to_string())))?;
        let (snapshot, _) = match kt.ldr.files.git_snapshot(&spec.url, &spec.rev) {
            Ok(found) => found,
            Err(e) => {
                self.unavailable(path, "target", e, at);
                return Ok(acc);
            }
        };
        let files = kt.ldr.files.sibling(snapshot.as_ref());
        let dir = RepoPath::new(if spec.subdir.is_empty() {
            "."
        } else {
            &spec.subdir
        })
        .map_err(|e| {
            at(KError::new(
                rules::KUSTOMIZE_REMOTE_RESOURCE,
                format!("'{path}': {e}"),
            ))
        })?;
        if files.kind(&dir) != EntryKind::Dir {
            return Err(at(KError::new(
                rules::KUSTOMIZE_FILE_NOT_FOUND,
                format!(
                    "remote target '{}': no directory '{dir}' in the repository at {}",
                    crate::fetch::url::redact_text(path),
                    if spec.rev.is_empty() {
                        "HEAD"
                    } else {
                        &spec.rev
                    }
                ),
            )));
        }
        let ldr = Loader::new(&files, dir, kt.ldr.root_only(), kt.ldr.schema.clone());
        self.accumulate_directory(kt, path, acc, ldr, is_component)
            .map_err(|e| {
                at(if is_component {
                    e.context("accumulateDirectory")
                } else {
                    e.context(format!(
                        "accumulating resources from '{}'",
                        crate::fetch::url::redact_text(path)
                    ))
                })
            })
    }

    pub(super) fn accumulate_components(&mut self, kt: &Kt, mut acc: Acc) -> Result<Acc, KError> {
        for (i, path) in kt.k.components.iter().enumerate() {
            let at = |e: KError| kt.err_at(e, "components", Some(i));
            // `loader.New` clones a remote component as it does a remote base.
            if crate::kustomize::loader::is_remote_repo(path) {
                acc = self.accumulate_remote(kt, path, acc, &at, true)?;
                continue;
            }
            let child = kt
                .ldr
                .child(path)
                .map_err(|e| at(e.context("loader.New")))?;
            acc = self
                .accumulate_directory(kt, path, acc, child, true)
                .map_err(|e| at(e.context("accumulateDirectory")))?;
        }
        Ok(acc)
    }

    pub(super) fn accumulate_directory<'a>(
        &mut self,
        parent: &Kt,
        rel: &str,
        acc: Acc,
        ldr: Loader<'a>,
        is_component: bool,
    ) -> Result<Acc, KError> {
        let root = ldr.root().clone();
        let mut sub = self
            .load(ldr)
            .map_err(|e| e.context(format!("couldn't make target for path '{root}'")))?;
        sub.build_metadata = parent.build_metadata.clone();
        self.set_openapi(&sub, false)?;
        sub.origin = parent.origin.as_ref().map(|o| origin::join(o, rel));
        if is_component && sub.k.kind != "Component" {
            return Err(KError::new(
                rules::KUSTOMIZE_COMPONENT_KIND,
                format!(
                    "expected kind 'Component' for path '{root}' but got '{}'",
                    sub.k.kind
                ),
            )
            .at(&sub.file, sub.span("kind", None)));
        }
        if !is_component && sub.k.kind == "Component" {
            return Err(KError::new(
                rules::KUSTOMIZE_COMPONENT_KIND,
                format!("expected kind != 'Component' for path '{root}'"),
            )
            .at(&sub.file, sub.span("kind", None)));
        }
        if is_component {
            // A component transforms everything accumulated so far.
            self.accumulate_target(&sub, acc)
                .map_err(|e| e.context(format!("recursed accumulation of path '{root}'")))
        } else {
            let sub_acc = self
                .accumulate_target(&sub, Acc::new())
                .map_err(|e| e.context(format!("recursed accumulation of path '{root}'")))?;
            let mut acc = acc;
            acc.merge(sub_acc)
                .map_err(|e| e.context(format!("recursed merging from path '{root}'")))?;
            Ok(acc)
        }
    }

    /// Reads a resource file: every non-empty document, `*List` kinds expanded.
    pub fn load_resources(&mut self, kt: &Kt, rel: &str) -> Result<ResMap, KError> {
        let (file, parsed) = kt.ldr.load_documents(rel, "kyaml", |b| {
            crate::kustomize::documents::read_documents_counted(b, &RESOURCE_PARSE)
        })?;
        resources_from_documents(kt, &file, rel, parsed)
    }
}

/// The resources of a stream of YAML documents (a resource file, a chart's rendered output)
/// read from `file` (named `rel` in messages), as kyaml's `ByteReader` and kustomize read them.
pub(super) fn resources_from_bytes(
    kt: &Kt,
    file: &RepoPath,
    rel: &str,
    bytes: &[u8],
) -> Result<ResMap, KError> {
    let parsed = crate::kustomize::documents::read_documents_counted(bytes, &RESOURCE_PARSE);
    resources_from_documents(kt, file, rel, parsed)
}

/// [`resources_from_bytes`] for documents already read.
fn resources_from_documents(
    kt: &Kt,
    file: &RepoPath,
    rel: &str,
    parsed: Result<(Vec<Node>, usize), yaml::YamlError>,
) -> Result<ResMap, KError> {
    let file = file.clone();
    let (mut docs, pieces) = parsed.map_err(|e| {
        KError::new(
            match e.kind {
                yaml::YamlErrorKind::Limit => rules::YAML_LIMIT,
                yaml::YamlErrorKind::DuplicateKey => rules::YAML_DUPLICATE_KEY,
                _ => rules::YAML_PARSE,
            },
            format!(
                "MalformedYAMLError: {} in File: {rel}",
                e.go_message
                    .clone()
                    .unwrap_or_else(|| format!("yaml: line {}: {}", e.span.line, e.message))
            ),
        )
        .with_cause(e.message.clone(), &[])
        .at(&file, e.span)
    })?;
    // kyaml's ByteReader unwraps a lone `List` (or `ResourceList`) keeping its items as
    // written; kustomize expands any other `*List` through Go's JSON.
    let lone_list = pieces == 1
        && docs.len() == 1
        && matches!(docs[0].str_at(&["kind"]), Some("List" | "ResourceList"))
        && (docs[0].get("items").is_some() || docs[0].get("functionConfig").is_some());
    let docs = if lone_list {
        match docs.swap_remove(0).remove("items").map(|items| items.kind) {
            Some(NodeKind::Seq(items)) => items,
            _ => Vec::new(),
        }
    } else {
        docs
    };
    let mut queue: std::collections::VecDeque<Node> = docs.into_iter().collect();
    let mut rm = ResMap::new();
    let mut ids = rm.ids();
    while let Some(doc) = queue.pop_front() {
        if doc.is_nil_or_empty() {
            continue;
        }
        let span = doc.span;
        if !doc.is_map() {
            return Err(KError::new(
                rules::RESOURCE_INVALID,
                "wrong node kind: expected MappingNode; a resource must be a mapping",
            )
            .at(&file, span));
        }
        let kind = doc.str_at(&["kind"]).unwrap_or("").to_string();
        if kind.is_empty() {
            return Err(
                KError::new(rules::RESOURCE_INVALID, "missing kind in object").at(&file, span),
            );
        }
        if kind.ends_with("List") {
            match doc.get("items") {
                None => {}
                Some(items) if items.is_null() => continue,
                Some(items) => match items.as_seq() {
                    Some(items) => {
                        let items = list_items_through_json(&kind, items).map_err(|e| {
                            KError::new(rules::RESOURCE_INVALID, e.to_string()).at(&file, e.span())
                        })?;
                        queue.extend(items);
                        continue;
                    }
                    None => {
                        return Err(KError::new(
                            rules::RESOURCE_INVALID,
                            format!("expected array in {kind}/items"),
                        )
                        .at(&file, items.span))
                    }
                },
            }
        } else if doc.str_at(&["metadata", "name"]).unwrap_or("").is_empty() {
            return Err(KError::new(
                rules::RESOURCE_INVALID,
                format!("missing metadata.name in object of kind {kind}"),
            )
            .at(&file, span));
        }
        rm.append_to(
            Res::new(
                doc,
                SourceOrigin {
                    file: file.clone(),
                    span,
                },
                kt.ldr.schema.clone(),
            ),
            &mut ids,
        )?;
    }
    Ok(rm)
}

/// How resource files are read. kyaml reads a node tree (no duplicate-key check) and kustomize
/// rewrites every object's `metadata.annotations` as a map before anything decodes the object:
/// a key given twice there keeps its last value, while a duplicate anywhere else fails when
/// the object is decoded.
const RESOURCE_PARSE: ParseOptions = ParseOptions {
    limits: yaml::Limits::DEFAULT,
    duplicate_keys: yaml::DuplicateKeys::LastWinsAt {
        path: super::ANNOTATIONS,
        otherwise: yaml::Otherwise::Error,
    },
    go_yaml_v3_comments: true,
    go_yaml_v2_errors: false,
    reader: yaml::Reader::Fast,
};

/// kustomize's `inlineAnyEmbeddedLists`: the list is decoded (go-yaml v3) and each item
/// encoded with Go's JSON and read back, which types every value anew (`0x1F` becomes `31`,
/// `~` becomes `null`).
fn list_items_through_json(kind: &str, items: &[Node]) -> Result<Vec<Node>, ListItemsError> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        if let Some((key, _)) = yaml::non_string_key(item) {
            return Err(ListItemsError::KeyNotString {
                kind: kind.to_string(),
                key: yaml::key_text(key),
                span: key.span,
            });
        }
        let value =
            yaml::to_value(item, Dialect::Yaml12).map_err(|error| ListItemsError::Value {
                kind: kind.to_string(),
                error,
                span: item.span,
            })?;
        out.push(yaml::from_json_text(&value).at(item.span));
    }
    Ok(out)
}

/// Why a `List`'s items cannot go through JSON, worded as kustomize's `inlineAnyEmbeddedLists`.
#[derive(Debug, thiserror::Error)]
enum ListItemsError {
    /// An item's mapping has a key that is no string (JSON has none such).
    #[error("trouble expanding list of {kind}: the key {key:?} is not a string: json: unsupported type: map[interface {{}}]interface {{}}")]
    KeyNotString {
        kind: String,
        key: String,
        span: yaml::Span,
    },
    /// An item holds a value JSON cannot (a number too big for float64).
    #[error("trouble expanding list of {kind}; {error}")]
    Value {
        kind: String,
        error: yaml::ValueError,
        span: yaml::Span,
    },
}

impl ListItemsError {
    fn span(&self) -> yaml::Span {
        match self {
            ListItemsError::KeyNotString { span, .. } | ListItemsError::Value { span, .. } => *span,
        }
    }
}
