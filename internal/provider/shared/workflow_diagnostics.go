package shared

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/berthhq/terraform-provider-berth/internal/ledger"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// The workflows (internal/workflow) say what happened with typed errors;
// these turn them into diagnostics, one each. What a kind of work can
// change when its charge is refused (fix) and which object it names differ
// by resource, so they come in an errorContext.

// ErrorContext is what the diagnostics of one resource's workflow name.
type ErrorContext struct {
	// Object is what the write creates ("job", "volume").
	Object string
	// ChargeSummary and chargeFix: a refused charge on a node reservation.
	ChargeSummary, ChargeFix string
	// Updating: a lost answer kept the new charge (an update) rather than
	// a tainted object (a create).
	Updating bool
	// WriteRefused reports a write Nomad refused (nil: Nomad's words).
	WriteRefused func(diags *diag.Diagnostics, err *workflow.WriteError)
}

// AddWorkflowError adds the one diagnostic err stands for.
func AddWorkflowError(diags *diag.Diagnostics, ec ErrorContext, err error) {
	var (
		nomadErr   *workflow.NomadError
		chargeErr  *workflow.ChargeError
		releaseErr *workflow.ReleaseError
		writeErr   *workflow.WriteError
		existsErr  *workflow.JobExistsError
		goneErr    *workflow.JobGoneError
		changedErr *workflow.JobChangedError
		secretErr  *workflow.SecretError
		dropErr    *workflow.SecretDeleteError
		volExists  *workflow.VolumeExistsError
		nameTaken  *workflow.VolumeNameTakenOnNodeError
		inUse      *workflow.VolumeInUseError
		vanished   *workflow.LeaseVanishedError
		unknownReg *workflow.RegistrationUnknownError
		reserveErr *workflow.ReserveError
		holdErr    *workflow.HoldError
		noPath     *nomadclient.VolumeNoPathError
	)
	switch {
	case errors.As(err, &chargeErr):
		addChargeError(diags, ec.ChargeSummary, ec.ChargeFix, chargeErr.Err)
	case errors.As(err, &noPath):
		addVolumeNoPathError(diags, noPath)
	case errors.As(err, &reserveErr):
		AddNodeReservationError(diags, reserveErr.Summary, reserveErr.Err)
	case errors.As(err, &holdErr) && holdErr.Released:
		AddNomadError(diags, "Could not remove the reservation's hold job",
			fmt.Errorf("the reservation was released from the ledger, but its hold job %q is still in Nomad: %w. "+
				"Run terraform destroy again to remove it", holdErr.JobID, holdErr.Err))
	case errors.As(err, &holdErr):
		AddNomadError(diags, "Could not hold the reservation in Nomad's scheduler",
			fmt.Errorf("the reservation is in the ledger, but its hold job %q could not be written: %w. Check that the "+
				"provider's hold_driver is enabled on the node and that the token may register jobs in the ledger namespace, "+
				"then apply again", holdErr.JobID, holdErr.Err))
	case errors.As(err, &releaseErr):
		AddNodeReservationError(diags, releaseErr.Summary, releaseErr.Err)
	case errors.As(err, &writeErr) && writeErr.Uncertain && ec.Updating:
		addUncertainUpdateError(diags, writeErr.Summary, ec.Object, writeErr.Err)
	case errors.As(err, &writeErr) && writeErr.Uncertain:
		addUncertainWriteError(diags, writeErr.Summary, ec.Object, writeErr.Err)
	case errors.As(err, &writeErr) && ec.WriteRefused != nil:
		ec.WriteRefused(diags, writeErr)
	case errors.As(err, &writeErr):
		AddNomadError(diags, writeErr.Summary, writeErr.Err)
	case errors.As(err, &existsErr) && ec.Object == "lease":
		diags.AddAttributeError(path.Root("name"), "Job already exists",
			fmt.Sprintf("Nomad already has a job %q in namespace %q. Choose another name, or import it: terraform import <address> %s/%s",
				existsErr.Name, existsErr.Namespace, existsErr.Namespace, existsErr.Name))
	case errors.As(err, &existsErr):
		addJobExistsError(diags, existsErr.Namespace, existsErr.Name, existsErr.Berth)
	case errors.As(err, &goneErr) && ec.Object == "lease":
		diags.AddError("Lease job is gone", fmt.Sprintf("Job %q in namespace %q was deleted from Nomad during the apply. "+
			"Run terraform apply again to create the lease.", goneErr.Name, goneErr.Namespace))
	case errors.As(err, &goneErr):
		diags.AddError("Job is gone", fmt.Sprintf("Job %q was deleted from Nomad during the apply. Run terraform apply again to recreate it.", goneErr.Name))
	case errors.As(err, &changedErr):
		what := "Job"
		if ec.Object == "lease" {
			what = "Lease"
		}
		diags.AddError("Job changed in Nomad since the last refresh",
			fmt.Sprintf("%s %q was modified outside Terraform after the plan was made (modify index %d, expected %d):\n  - %s\n"+
				"Run terraform plan again to see the drift, then apply.", what, changedErr.Name, changedErr.Index, changedErr.Expected,
				strings.Join(changedErr.Changed, "\n  - ")))
	case errors.As(err, &secretErr) && secretErr.Taken():
		at := path.Root("variables_wo")
		if secretErr.Service != "" {
			at = path.Root("services").AtMapKey(secretErr.Service).AtName("secret_env_wo")
		}
		diags.AddAttributeError(at, "Secrets Variable held by someone else",
			fmt.Sprintf("Nomad has a Variable at %s in namespace %q that berth did not write, or that was written after "+
				"berth last wrote it (%v). berth writes a secrets Variable only where none is, or over its own last write, "+
				"with check-and-set, so it overwrote nothing and registered nothing: that Variable is unchanged. If a "+
				"berth_variable or an operator keeps items there, the job's tasks read them too; move them into this "+
				"resource's secrets, or delete that Variable (`nomad var purge -namespace=%s %s`) if nothing needs it, "+
				"then apply again.", secretErr.Path, secretErr.Namespace, secretErr.Err, secretErr.Namespace, secretErr.Path))
	case errors.As(err, &secretErr) && secretErr.Service == "" && secretErr.Missing:
		diags.AddAttributeError(path.Root("variables_wo"), "Missing variables_wo",
			"variables_wo_version changed, but the configuration gives no variables_wo to write.")
	case errors.As(err, &secretErr) && secretErr.Service == "":
		AddNomadError(diags, "Could not write the job's Variable", secretErr.Err)
	case errors.As(err, &secretErr) && secretErr.Missing:
		diags.AddAttributeError(path.Root("services").AtMapKey(secretErr.Service).AtName("secret_env_wo"), "Missing secret_env_wo",
			"secret_env_wo_version changed, but the configuration gives no secret_env_wo to write.")
	case errors.As(err, &secretErr):
		AddNomadError(diags, fmt.Sprintf("Could not write the secrets of service %q", secretErr.Service), secretErr.Err)
	case errors.As(err, &dropErr) && dropErr.Taken:
		diags.AddWarning("Secrets Variable left in Nomad", fmt.Sprintf("berth did not delete the Variable at %s in "+
			"namespace %q: it was written by someone else after berth wrote it (%v), so it is theirs now. Delete it with "+
			"`nomad var purge -namespace=%s %s` if nothing needs it.", dropErr.Path, dropErr.Namespace, dropErr.Err,
			dropErr.Namespace, dropErr.Path))
	case errors.As(err, &dropErr):
		summary := "Could not delete a secrets Variable"
		detail := fmt.Sprintf("%v\n\nThe Variable still holds the secrets; delete it with `nomad var purge -namespace=%s %s`.",
			dropErr.Err, dropErr.Namespace, dropErr.Path)
		if dropErr.Fatal {
			diags.AddError(summary, detail)
		} else {
			diags.AddWarning(summary, detail)
		}
	case errors.As(err, &volExists) && volExists.Kind == "CSI volume":
		diags.AddAttributeError(path.Root("name"), "Volume already exists",
			fmt.Sprintf("Namespace %q already has a CSI volume with ID %q (berth uses the name as the ID). Give this volume "+
				"another name, or, if nothing needs the existing one, delete it with `nomad volume delete -namespace=%s %s` "+
				"and apply again.", volExists.Namespace, volExists.ID, volExists.Namespace, volExists.ID))
	case errors.As(err, &volExists):
		diags.AddAttributeError(path.Root("name"), "Volume already exists",
			fmt.Sprintf("Namespace %q already has a host volume named %q (ID %s on node %s). To manage it here, import it: "+
				"terraform import <address> %s", volExists.Namespace, volExists.Name, volExists.ID, volExists.NodeID, volExists.ID))
	case errors.As(err, &nameTaken):
		diags.AddAttributeError(path.Root("name"), "Volume name taken on the node",
			fmt.Sprintf("Nomad said: %v. The servers list no volume %q, but the node already holds one by that name: it is "+
				"left over from a volume creation interrupted by an agent crash (Nomad creates a volume on the node before "+
				"the servers record it). Nomad's API cannot remove it. Give this volume another name, or remove the "+
				"leftover on the node (its directory and its entry in the client's state) and apply again.", nameTaken.Err, nameTaken.Name))
	case errors.As(err, &inUse):
		// CSI volumes have no force: Nomad deletes them only once unclaimed.
		kind, orForce := "Host volume", "; or set force_destroy = true where Nomad allows it"
		if inUse.Kind == "CSI volume" {
			kind, orForce = "CSI volume", ""
		}
		diags.AddError("Volume is in use",
			fmt.Sprintf("%s %q (%s) is used by %s. Stop them first (remove or stop the jobs and instances that mount it, "+
				"e.g. `nomad job stop <job>`), then destroy again%s.",
				kind, inUse.Name, inUse.ID, inUse.Users, orForce))
	case errors.As(err, &vanished):
		diags.AddError("Lease job vanished",
			fmt.Sprintf("Job %q in namespace %q was %s but is gone from Nomad: something deleted it during the apply. "+
				"Run terraform apply again to create the lease.", vanished.Name, vanished.Namespace, vanished.Verb))
	case errors.As(err, &unknownReg):
		diags.AddError("Could not tell whether the lease was registered",
			fmt.Sprintf("Reading job %q in namespace %q after the failed registration failed too: %v. If Nomad holds the job, "+
				"import it (terraform import <address> %s/%s) or stop it; its charge on a node reservation, if any, was kept.",
				unknownReg.Name, unknownReg.Namespace, unknownReg.Err, unknownReg.Namespace, unknownReg.Name))
	case errors.As(err, &nomadErr):
		AddNomadError(diags, nomadErr.Summary, nomadErr.Err)
	default:
		AddNomadError(diags, "Could not write to Nomad", err)
	}
}

// AddWarnings adds a workflow's warnings to diags.
func AddWarnings(diags *diag.Diagnostics, warnings []workflow.Warning) {
	for _, w := range warnings {
		diags.AddWarning(w.Summary, w.Detail)
	}
}

// AddOutcome adds a workflow's warnings and the problems of its undo and
// clean-up steps.
func AddOutcome(diags *diag.Diagnostics, ec ErrorContext, warnings []workflow.Warning, problems []error) {
	AddWarnings(diags, warnings)
	for _, p := range problems {
		AddWorkflowError(diags, ec, p)
	}
}

// addJobExistsError refuses to create an instance whose job Nomad already
// has, and says how to take it over.
func addJobExistsError(diags *diag.Diagnostics, namespace, name string, berthJob bool) {
	owner := "It is not managed by berth."
	if berthJob {
		owner = "It was created by berth, probably from another Terraform state."
	}
	diags.AddAttributeError(path.Root("name"), "Job already exists",
		fmt.Sprintf("Nomad already has a job %q in namespace %q. %s To manage it here, import it: "+
			"terraform import <address> %s", name, namespace, owner, namespace+"/"+name))
}

// AddRolloutError reports a rollout failure with Nomad's own words. When
// berth lost track of the rollout (Nomad unreachable, no leader, timeout)
// rather than seeing it fail, it says that the job is registered and the
// rollout may go on.
func AddRolloutError(diags *diag.Diagnostics, summary, jobID string, err error) {
	var re *nomadclient.RolloutError
	if errors.As(err, &re) {
		diags.AddError(summary, re.Error()+"\n\nThe job stays registered; fix the cause and apply again, "+
			"or inspect it with `nomad job status "+re.JobID+"`.")
		return
	}
	var d diag.Diagnostics
	AddNomadError(&d, summary, err)
	diags.AddError(summary, fmt.Sprintf("Job %q is registered, but berth lost track of its rollout while waiting for it: %s\n\n"+
		"The rollout may still be going on in Nomad. Check it with `nomad job status %s`, then run terraform apply again.",
		jobID, d[0].Detail(), jobID))
}

// addVolumeNoPathError reports a host volume Nomad placed on a node its
// servers cannot reach (a down node, or one gone but still listed): which
// node, and what moves the volume elsewhere or clears the node away.
func addVolumeNoPathError(diags *diag.Diagnostics, e *nomadclient.VolumeNoPathError) {
	named := make([]string, 0, len(e.Nodes))
	for _, n := range e.Nodes {
		text := n.ID
		switch {
		case n.Name != "" && n.Status != "":
			text += fmt.Sprintf(" (%s, %s)", n.Name, n.Status)
		case n.Name != "":
			text += fmt.Sprintf(" (%s)", n.Name)
		}
		named = append(named, text)
	}
	pool := "any node pool"
	if e.Pool != "" {
		pool = fmt.Sprintf("node pool %q", e.Pool)
	}
	var where, purge string
	switch {
	case e.Pinned:
		where = fmt.Sprintf("the node it is pinned to (node_id, or its node reservation's node), %s, which Nomad's servers cannot reach",
			named[0])
		purge = e.Nodes[0].ID
	case len(named) == 1:
		where = fmt.Sprintf("a node Nomad's servers cannot reach: the one node in %s that can hold it and is not ready is %s",
			pool, named[0])
		purge = e.Nodes[0].ID
	case len(named) > 1:
		where = fmt.Sprintf("a node Nomad's servers cannot reach, one of those in %s that can hold it and are not ready: %s",
			pool, strings.Join(named, ", "))
		purge = "<node-id>"
	default:
		where = "a node Nomad's servers cannot reach (Nomad does not say which; `nomad node status` lists the nodes that are down)"
		purge = "<node-id>"
	}
	diags.AddError("Volume placed on a node Nomad cannot reach",
		fmt.Sprintf("Nomad placed host volume %q on %s, and nothing was created. Nomad said: %v.\n\n"+
			"Set node_id to a ready node, or node_pool to a pool whose nodes are ready (`nomad node status` lists them); "+
			"a node that is gone for good stays in Nomad's placement until it is removed: `nomad node purge %s`. Then apply again.",
			e.Name, where, e.Err, purge))
}

// AddNodeReservationError reports capacity and budget refusals in berth's own
// words (they already name the node and the numbers), and Nomad failures
// with Nomad's.
func AddNodeReservationError(diags *diag.Diagnostics, summary string, err error) {
	var notEnough *ledger.NotEnoughError
	var noCand *ledger.NoCandidateError
	var budget *ledger.BudgetError
	var taken *nomadclient.NodeReservationExistsError
	var notFound *nomadclient.NodeNotFoundError
	switch {
	case errors.As(err, &notFound):
		diags.AddAttributeError(path.Root("node_id"), "Node not found",
			err.Error()+". Use a full node ID from the berth_nodes data source or `nomad node status`.")
	case errors.As(err, &notEnough), errors.As(err, &noCand), errors.As(err, &budget), errors.As(err, &taken),
		errors.Is(err, nomadclient.ErrLedgerContention):
		diags.AddError(summary, err.Error())
	default:
		AddNomadError(diags, summary, err)
	}
}
