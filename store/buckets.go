package store

// Bucket names, all in one place. Events live in one nested bucket per branch under eventsBucket;
// checkpoints in nested buckets per projection name and branch under projectionsBucket.
var (
	metaBucket        = []byte(pathMeta)
	branchesBucket    = []byte(pathBranches)
	eventsBucket      = []byte(pathEvents)
	artifactsBucket   = []byte(pathArtifacts)
	projectionsBucket = []byte(pathProjections)
	// headsBucket keeps each branch's head (seq and hash), written in the same transaction as
	// every append, so that a lost last event is noticed. A branch not yet appended to has no
	// head record (schema 4): its branch record holds its head.
	headsBucket = []byte(pathHeads)
)

// RecordBucket names a key/value bucket of opaque records that the harness owns.
type RecordBucket string

// The record buckets the store creates.
const (
	// Sessions holds session metadata by session id.
	Sessions RecordBucket = "sessions"
	// Secrets holds sealed secret values by name.
	Secrets RecordBucket = "secrets"
	// Models holds the model registry by model name.
	Models RecordBucket = "models"
	// Settings holds small harness settings by key.
	Settings RecordBucket = "settings"
	// Journal holds multi-step operations in progress (a fork's working copy, a restore), so
	// that one cut short by a crash is completed or rolled back on the next open.
	Journal RecordBucket = "journal"
)

// recordBuckets lists every record bucket, created when a database is initialised.
var recordBuckets = []RecordBucket{Sessions, Secrets, Models, Settings, Journal}

// topBuckets lists every top-level bucket of a current database.
func topBuckets() [][]byte {
	out := [][]byte{metaBucket, branchesBucket, eventsBucket, artifactsBucket, projectionsBucket, headsBucket}
	for _, b := range recordBuckets {
		out = append(out, []byte(b))
	}
	return out
}

// Keys inside metaBucket.
var (
	metaMagicKey  = []byte("magic")
	metaSchemaKey = []byte("schema")
)

// magic marks a bbolt file as an exo database.
const magic = "exo event store"

// SchemaVersion is the version of the on-disk layout this build reads and writes.
// Version 2 added the heads bucket; a version 1 file is migrated on open. Version 3 creates a
// branch's events bucket at its first append rather than with the branch (a fork writes less).
// Version 4 keeps a new branch's head (the fork point's hash) in its branch record until its
// first append writes its head record beside its first events: a fork is one put in one
// bucket. A version 2 or 3 file is read as it is (its branches have head records, and version
// 2's events buckets), and the first branch created in it records version 4, so that a build
// that reads only an older version refuses the file from then on instead of taking a branch
// without an events bucket or a head record for damage.
const SchemaVersion = 4

// schemaHeads is the first version with the heads bucket: a file of it or of any later
// version up to SchemaVersion is current until a branch is created in it.
const schemaHeads = 2
