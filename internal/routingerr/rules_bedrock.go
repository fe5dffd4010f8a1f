package routingerr

import "strings"

// Amazon Bedrock, by exception name (boto3, the AWS SDKs and Claude Code on
// Bedrock all carry it).
var bedrockRules = []rule{
	{id: "bedrock.per_day.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.9,
		any: []string{"tokens per day", "requests per day"}},

	// On-demand throughput not supported: the model id must be an inference
	// profile — a configuration of the model, not of the request.
	{id: "bedrock.on_demand_unsupported.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.85,
		any: []string{"on-demand throughput", "inference profile"}},
	{id: "bedrock.access_denied.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.9,
		any: []string{"accessdeniedexception"}},
	// Anthropic's models on Bedrock need the account's use case form first:
	// "Model use case details have not been submitted for this account.
	// Fill out the Anthropic use case details form before using the model.
	// If you have already filled out the form, try again in 15 minutes." —
	// a console step, whatever status or exception carries it, and its "try
	// again in 15 minutes" is no rate hint.
	{id: "bedrock.use_case_form.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.9,
		any: []string{"use case details have not been submitted", "anthropic use case details form"}},
	{id: "bedrock.service_quota.v1", band: bandUser, code: "quota", class: ClassUserAction, conf: 0.8,
		any: []string{"servicequotaexceededexception",
			// Its message where the name is dropped (Claude Code through
			// @anthropic-ai/bedrock-sdk: "API Error: 400 Your request exceeds
			// the service quota for your account. …").
			"exceeds the service quota for your account"}},
	// IAM's denial, in any AWS service's words ("User: arn:… is not
	// authorized to perform: bedrock:InvokeModel on resource: … because no
	// identity-based policy allows …"), and AccessDeniedException's "Your
	// account is not authorized to invoke this API operation.".
	{id: "aws.iam_not_authorized.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.85,
		any: []string{"is not authorized to perform: ", "not authorized to invoke this api operation"}},
	// SigV4 with a skewed clock ("Signature expired: 20260601T115000Z is
	// now earlier than …", RequestExpired): the machine's clock, not the
	// credential (so before bedrock.credentials.v1).
	{id: "aws.signature_expired.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"signature expired: ", "requestexpired"}},
	{id: "bedrock.resource_not_found.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.8,
		any: []string{"resourcenotfoundexception"}},
	{id: "bedrock.credentials.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.9,
		any: []string{"unrecognizedclientexception", "expiredtokenexception", "security token included in the request is",
			// No credentials at all: botocore's NoCredentialsError ("Unable to
			// locate credentials"), the JS SDK's CredentialsProviderError
			// ("Could not load credentials from any providers"); catalogue
			// bedrock-botocore-no-credentials, bedrock-js-no-credentials.
			"unable to locate credentials", "could not load credentials from any providers",
			// The Bedrock troubleshooting guide's InvalidClientTokenId and
			// IncompleteSignature: a key that does not exist, a secret that
			// does not sign.
			"invalidclienttokenid", "access key id you provided does not exist",
			// The guide's current wording of InvalidClientTokenId's cause
			// ("The X.509 certificate or AWS access key ID provided does not
			// exist in our records."; catalogue bedrock-invalid-client-token-x509).
			"access key id provided does not exist",
			"signature we calculated does not match",
			// SSO and login sessions, in botocore's words (exceptions.py:
			// UnauthorizedSSOTokenError, SSOTokenLoadError,
			// LoginRefreshRequired, PartialCredentialsError,
			// CredentialRetrievalError) and the JS SDK's as Claude Code
			// bundles them (TokenProviderError "Token is expired. To refresh
			// this SSO session run 'aws sso login' …",
			// CredentialsProviderError "Could not resolve credentials using
			// profile: […]").
			"to refresh this sso session run", "error loading sso token", "reauthenticate using 'aws login'",
			"re-authenticate using aws login", "partial credentials found in", "error when retrieving credentials from",
			"could not resolve credentials using profile",
			// The AWS SDK for Rust with no credentials (aws-config's
			// CredentialsProviderChain: CredentialsError::not_loaded("no
			// providers in chain provided credentials"), since 2026 "no
			// credentials found in chain. Attempted: …"; aws-credential-types'
			// CredentialsNotLoaded, "the credential provider was not
			// enabled"), which goose and Kiro print inside the SDK's
			// DispatchFailure: the request was never sent.
			"no providers in chain provided credentials", "no credentials found in chain", "credentialsnotloaded",
			"the credential provider was not enabled"}},
	// botocore's ConnectionClosedError: "Connection was closed before we
	// received a valid response from endpoint URL: …".
	{id: "aws.connection_closed.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.85,
		any: []string{"connection was closed before we received a valid response"}},

	{id: "bedrock.throttling.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.9,
		any: []string{"throttlingexception", "too many tokens, please wait", "too many requests, please wait",
			// ThrottlingException's message in AWS's common errors ("Your
			// request rate is too high. The AWS SDKs automatically retry
			// requests that receive this exception. Reduce the frequency of
			// requests."), which Bedrock Agents and the wrappers that keep
			// only the message relay without the name ("Your request rate is
			// too high. Reduce the frequency of requests. Check your Bedrock
			// model invocation quotas …"); catalogue bedrock-throttling-
			// request-rate-common, bedrock-throttling-request-rate-message.
			"your request rate is too high"}},
	// The exception's runtime message, when a wrapper keeps only it ("Error:
	// Can't invoke. Reason: Bedrock is unable to process your request.").
	{id: "bedrock.service_unavailable.v1", band: bandTransient, code: "unavailable", class: ClassTransient, conf: 0.9,
		any: []string{"serviceunavailableexception", "bedrock is unable to process your request"}},
	{id: "bedrock.model_not_ready.v1", band: bandTransient, code: "unavailable", class: ClassTransient, conf: 0.85,
		any: []string{"modelnotreadyexception"}},
	// By name, or by the runtime's messages where a wrapper keeps only the
	// message: InternalServerException's "The system encountered an
	// unexpected error during processing. Try your request again.",
	// ModelTimeoutException's "Model has timed out in processing the
	// request. Try your request again."
	{id: "bedrock.internal.v1", band: bandTransient, code: "server_error", class: ClassTransient, conf: 0.85,
		any: []string{"internalserverexception", "modelstreamerrorexception", "modelerrorexception", "modeltimeoutexception",
			"encountered an unexpected error during processing", "model has timed out in processing the request",
			// ModelErrorException's (424) message.
			"failed due to an error while processing the model"}},

	// "The maximum tokens you requested exceed the model limit of 4096. Try
	// again with a maximum tokens value lower than 4096.": the request's own
	// max_tokens; the same request fails the same way.
	{id: "bedrock.max_tokens.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"maximum tokens you requested exceed"}},

	// ValidationException by name, or by its messages when a wrapper drops
	// the name: "Malformed input request: #: … please reformat your input
	// and try again.", and "The model returned the following errors: …"
	// around the model's own 400 (a more specific reading of that inner
	// message, e.g. a prompt too long, comes first).
	// A ValidationException whose whole message is "Operation not allowed":
	// Bedrock refusing the account or the model to this caller (model
	// access not granted, an account not yet enabled), which the
	// troubleshooting guide files with the access errors, not with a
	// malformed body. A human must grant access.
	{id: "bedrock.operation_not_allowed.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.8,
		gate:  []string{"operation: operation not allowed", "validationexception: operation not allowed"},
		check: "nothing but the end of the line follows \"Operation not allowed\"",
		match: func(s *scan) int {
			for _, w := range []string{"operation: operation not allowed", "validationexception: operation not allowed"} {
				if i := strings.Index(s.low, w); i >= 0 {
					if rest := strings.TrimRight(lineFrom(s.low, i+len(w)), " .\"'}"); rest == "" {
						return i
					}
				}
			}
			return -1
		}},

	{id: "bedrock.validation.v1", band: bandGeneric, code: "invalid_request", class: ClassTerminal, conf: 0.7,
		any: []string{"validationexception", "malformed input request", "the model returned the following errors",
			"input fails to satisfy the constraints specified by the service",
			// AWS's own constraint message, which wrappers relay without the
			// exception name (litellm's BedrockException - {"message":"…"}):
			// "1 validation error detected: Value 'x' at 'role' failed to
			// satisfy constraint: Member must satisfy regular expression
			// pattern: …"; catalogue bedrock aws-validation-constraint-message.
			"failed to satisfy constraint: member must"},
		none: []string{"overloaded"}},
	// The AWS SDK for JavaScript v3 without a region (@smithy/config-resolver:
	// "Region is missing"); the AI SDK's Bedrock provider says the same in
	// its loadSetting words ("AWS region setting is missing. Pass it using
	// the 'region' parameter or the AWS_REGION environment variable.").
	{id: "aws.region_missing.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"region is missing", "region setting is missing",
			// botocore's NoRegionError and ProfileNotFound ("The config profile
			// (x) could not be found"): the AWS configuration.
			"you must specify a region", "profilenotfound", "the config profile (",
			// litellm's Bedrock client without one (litellm/llms/bedrock.py
			// init_bedrock_client: BedrockError "AWS region not set: set
			// AWS_REGION_NAME or AWS_REGION env variable or in .env file").
			"aws region not set"}},
}
