import { ModelProfile } from "@longrun/protocol";

/** A default sim profile for test threads. */
export const testProfile: ModelProfile = ModelProfile.parse({ model: "sim", maxInputTokens: 8000 });
