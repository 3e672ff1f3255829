/**
 * The image, the Compose recipes (replicas, and sign-in) and the Kubernetes manifests, run with
 * podman (test/integration/containers/). One file, so that the four run at once, each a concurrent
 * suite with its own containers: most of their time is waiting on containers to
 * start, which they can do together, and vitest runs test files one after another
 * on a machine of two cores. The image and its bases are made first, once.
 */
import { beforeAll } from "vitest"
import * as Containers from "../support/Containers.js"
import "./containers/Image.js"
import "./containers/Compose.js"
import "./containers/Kube.js"
import "./containers/SignIn.js"

beforeAll(() => Containers.ensureImage(), Containers.BUILD_TIMEOUT_MS)
