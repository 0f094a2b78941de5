//! The content of a `user` line we send claude: text and base64 images, the Messages API's block
//! shapes.

use serde::Serialize;

/// One block of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputBlock {
    Text { text: String },
    Image { source: ImageSource },
}

/// Where an image block's bytes are.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ImageSource {
    Base64 { media_type: String, data: String },
}

impl InputBlock {
    pub fn text(text: impl Into<String>) -> Self {
        InputBlock::Text { text: text.into() }
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
