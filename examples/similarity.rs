//! Shows the embedder at work: cosine similarity of a few sentence pairs.
//!
//! Usage: `cargo run -p ferrex-examples --example similarity`
//! (install the model first with `scripts/fetch-model`).

use ferrex_core::{Embedder, cosine};
use ferrex_embed::{EmbedderOptions, FastEmbedder, ModelSearch};

const PAIRS: [(&str, &str); 4] = [
    ("The cat sits on the mat", "A cat is sitting on a rug"),
    ("The cat sits on the mat", "Quarterly revenue grew 10%"),
    ("The API server listens on port 8080", "Which port does the api server use?"),
    ("Deploys go out every Wednesday", "The build uses cargo nextest"),
];

#[allow(clippy::print_stdout, reason = "an example prints its results")]
fn main() -> anyhow::Result<()> {
    let mut embedder = FastEmbedder::load(&ModelSearch::from_env(), &EmbedderOptions::default())?;
    println!("model {} ({} dimensions)\n", embedder.model_id(), embedder.dimension());
    for (left, right) in PAIRS {
        let vectors = embedder.embed_batch(&[left, right])?;
        println!("{:>6.3}  {left:?} ~ {right:?}", cosine(&vectors[0], &vectors[1]));
    }
    Ok(())
}
