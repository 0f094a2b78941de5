//! The `user` line we send claude: its content (text, base64 images and PDF documents, the
//! Messages API's block shapes), and the uuid and priority that place it in claude's queue.

use serde::Serialize;

use super::ClaudeInput;

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

/// How urgently claude takes a user message sent while it works.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Into the running turn at once (the generation under way is cut short).
    Now,
    /// Once what claude waits on (a permission ask, a question) is settled, so it stays asked.
    Later,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UserInputMessage {
    pub role: &'static str,
    pub content: Vec<InputBlock>,
}

impl ClaudeInput {
    /// A user line given our `uuid` (claude names it in the `result` that answers it) and, for
    /// one sent into a running turn, its priority. Other lines are left as they are.
    pub fn addressed(mut self, id: String, urgency: Option<Priority>) -> Self {
        if let ClaudeInput::User { uuid, priority, .. } = &mut self {
            *uuid = Some(id);
            *priority = urgency;
        }
        self
    }
}
