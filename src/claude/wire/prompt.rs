//! The content of a `user` line we send claude: text, base64 images and PDF documents, the
//! Messages API's block shapes.

use serde::Serialize;

/// One block of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputBlock {
    Text {
        text: String,
    },
    Image {
        source: ImageSource,
    },
    /// A PDF, which the model reads page by page (text and images).
    Document {
        source: ImageSource,
        #[serde(skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
}

/// Where an image's or a document's bytes are.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ImageSource {
    Base64 { media_type: String, data: String },
}

impl InputBlock {
    pub fn text(text: impl Into<String>) -> Self {
        InputBlock::Text { text: text.into() }
    }

    pub fn base64_pdf(data: &str, title: Option<String>) -> Self {
        InputBlock::Document {
            source: ImageSource::Base64 {
                media_type: "application/pdf".to_owned(),
                data: data.to_owned(),
            },
            title,
        }
    }

    pub fn base64_image(media_type: &str, data: &str) -> Self {
        InputBlock::Image {
            source: ImageSource::Base64 {
                media_type: media_type.to_owned(),
                data: data.to_owned(),
            },
        }
    }
}
