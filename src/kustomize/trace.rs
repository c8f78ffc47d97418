//! What `kdelta explain` shows of a kustomize build (`Options::trace`): every object's state
//! after each step that can change it — the resources a kustomization loads, its generators and
//! components, each patch, builtin transformer and replacement, the root's final passes — with
//! the kustomization entry that configured the step.

use super::res::anno;
use super::resmap::ResMap;
use crate::engine::Stage;
use crate::resource::Origin;
use crate::source::RepoPath;
use crate::yaml::Node;

/// The steps of one build, in the order they ran (bases before the overlays that use them).
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub steps: Vec<Step>,
    /// The key of each output object, in output order.
    pub output: Vec<ObjectKey>,
}

impl Trace {
    /// The states of the output object at `index`: after each step that left it, in the order
    /// the steps ran (none when the build was not traced).
    pub fn history(&self, index: usize) -> impl Iterator<Item = Stage<'_>> {
        let key = self.output.get(index);
        self.steps.iter().filter_map(move |step| {
            let (_, object) = step.objects.iter().find(|(k, _)| Some(k) == key)?;
            Some(Stage {
                file: &step.file,
                line: step.line,
                step: &step.what,
                object,
            })
        })
    }
}

/// One step and the objects it left.
#[derive(Clone, Debug)]
pub struct Step {
    /// The kustomization that configured the step.
    pub file: RepoPath,
    /// The line of its entry there (0: unknown).
    pub line: u32,
    /// What ran: `resources`, `patches[0]`, `images[1] (ImageTagTransformer)`…
    pub what: String,
    /// Every object of the kustomization being built after the step.
    pub objects: Vec<(ObjectKey, Node)>,
}

/// An object's identity through a build: where it was read from (its name and namespace
/// change on the way), and which of the objects read from there it is (a base included
/// through two paths gives two).
pub type ObjectKey = (Origin, usize);

/// The objects of `rm` as the output would show them (without kustomize's bookkeeping
/// annotations), keyed.
pub fn objects(rm: &ResMap) -> Vec<(ObjectKey, Node)> {
    let mut seen: Vec<&Origin> = Vec::new();
    rm.list
        .iter()
        .map(|r| {
            let occurrence = seen.iter().filter(|o| **o == &r.origin).count();
            seen.push(&r.origin);
            let mut clean = r.clone();
            clean.remove_build_annotations();
            let mut a = clean.annotations();
            if a.remove(anno::ORIGIN).is_some() | a.remove(anno::TRANSFORMATIONS).is_some() {
                clean.set_annotations(&a);
            }
            ((r.origin.clone(), occurrence), clean.node)
        })
        .collect()
}
