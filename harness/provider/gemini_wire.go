package provider

// The Gemini API's request body, as the genai SDK's types write it: the same JSON names, the
// same field order and the same omitempty rules, for the fields exo sends. exo builds the body
// and reads the stream itself, so it needs the SDK for nothing but these shapes; linking the SDK
// for them cost its Google Cloud credential chain and a package initialiser that keeps every
// exported method of the whole program alive (see README, "Binary size").
// TestGeminiWireMatchesSDK holds the two encodings byte for byte equal.

// gContent is genai.Content: one turn's parts and its role ("user" or "model").
type gContent struct {
	Parts []*gPart `json:"parts,omitempty"`
	Role  string   `json:"role,omitempty"`
}

// gPart is genai.Part: text (a thought when Thought is set), a function call or a function
// response, with the thought signature the API put on it.
type gPart struct {
	FunctionCall     *gFunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *gFunctionResponse `json:"functionResponse,omitempty"`
	Text             string             `json:"text,omitempty"`
	Thought          bool               `json:"thought,omitempty"`
	ThoughtSignature []byte             `json:"thoughtSignature,omitempty"`
}

// gFunctionCall is genai.FunctionCall.
type gFunctionCall struct {
	ID   string         `json:"id,omitempty"`
	Args map[string]any `json:"args,omitempty"`
	Name string         `json:"name,omitempty"`
}

// gFunctionResponse is genai.FunctionResponse.
type gFunctionResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name,omitempty"`
	Response map[string]any `json:"response,omitempty"`
}

// gTool is genai.Tool holding function declarations.
type gTool struct {
	FunctionDeclarations []*gFunctionDeclaration `json:"functionDeclarations,omitempty"`
}

// gFunctionDeclaration is genai.FunctionDeclaration with its parameters as a JSON schema.
type gFunctionDeclaration struct {
	Description          string `json:"description,omitempty"`
	Name                 string `json:"name,omitempty"`
	ParametersJSONSchema any    `json:"parametersJsonSchema,omitempty"`
}

// gToolConfig is genai.ToolConfig.
type gToolConfig struct {
	FunctionCallingConfig *gFunctionCallingConfig `json:"functionCallingConfig,omitempty"`
}

// gFunctionCallingConfig is genai.FunctionCallingConfig.
type gFunctionCallingConfig struct {
	Mode string `json:"mode,omitempty"`
}

// gModeAuto is genai.FunctionCallingConfigModeAuto.
const gModeAuto = "AUTO"

// gGenerationConfig is genai.GenerationConfig.
type gGenerationConfig struct {
	MaxOutputTokens int32            `json:"maxOutputTokens,omitempty"`
	ThinkingConfig  *gThinkingConfig `json:"thinkingConfig,omitempty"`
}

// gThinkingConfig is genai.ThinkingConfig.
type gThinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int32 `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

// The thinking levels exo asks for, genai.ThinkingLevelLow and genai.ThinkingLevelHigh.
const (
	gThinkingLow  = "LOW"
	gThinkingHigh = "HIGH"
)
