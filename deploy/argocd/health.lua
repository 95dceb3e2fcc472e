-- Argo CD health check for codeflare.dev/CodeFlareWorkload (install: deploy/argocd/README.md).
-- Argo CD runs it with the live object as the global `obj` (gopher-lua, Lua 5.1) and reads the returned
-- {status, message}. Order of the rules:
--   no status yet, or status.observedGeneration behind metadata.generation  -> Progressing (the operator has not
--                                                                              caught up with the spec)
--   condition Valid=False                        -> Degraded, with the condition's message
--   condition Admissible=False                   -> Degraded: Kueue can never admit it as its queue stands (the
--                                                   operator leaves the condition out once Kueue has admitted it)
--   phase Failed                                 -> Degraded
--   phase Invalid                                -> Degraded
--   phase Succeeded, run of an earlier spec      -> Degraded (Ready reason EarlierSpecSucceeded: the spec in Git
--                                                   changed while it ran and has not run)
--   phase Succeeded                              -> Healthy
--   phase Running: condition Ready=True          -> Healthy, else Progressing
--   phase Suspended                              -> Suspended
--   phase Pending, Queued, Admitted              -> Progressing
--   no phase: Ready=True -> Healthy, else Progressing; any other phase -> Unknown
-- The message is the most telling condition's message: Succeeded (jobs) for Failed/Succeeded, Admitted while
-- Queued, else Ready.
local hs = {}

local function condition(status, kind)
  if status.conditions == nil then
    return nil
  end
  for _, c in ipairs(status.conditions) do
    if c.type == kind then
      return c
    end
  end
  return nil
end

-- The message of the first of these conditions that has one, else the fallback.
local function message_of(status, kinds, fallback)
  for _, kind in ipairs(kinds) do
    local c = condition(status, kind)
    if c ~= nil and c.message ~= nil and c.message ~= "" then
      return c.message
    end
  end
  return fallback
end

local function result(status, message)
  hs.status = status
  hs.message = message
  return hs
end

local status = obj.status
if status == nil then
  return result("Progressing", "Waiting for the operator to report a status")
end

local generation = obj.metadata and obj.metadata.generation
if generation ~= nil then
  local observed = status.observedGeneration
  if observed == nil or observed < generation then
    return result("Progressing", "Waiting for the operator to observe generation " .. tostring(generation) ..
      " (status is for " .. (observed == nil and "no generation" or "generation " .. tostring(observed)) .. ")")
  end
end

local valid = condition(status, "Valid")
if valid ~= nil and valid.status == "False" then
  return result("Degraded", message_of(status, { "Valid" }, "The spec is invalid"))
end

local admissible = condition(status, "Admissible")
if admissible ~= nil and admissible.status == "False" then
  return result("Degraded", message_of(status, { "Admissible" }, "Kueue can never admit the workload"))
end

local phase = status.phase
local ready = condition(status, "Ready")
local is_ready = ready ~= nil and ready.status == "True"

if phase == "Failed" then
  return result("Degraded", message_of(status, { "Succeeded", "Ready" }, "The workload failed"))
elseif phase == "Invalid" then
  return result("Degraded", message_of(status, { "Valid", "Ready" }, "The spec is invalid"))
elseif phase == "Succeeded" and ready ~= nil and ready.reason == "EarlierSpecSucceeded" then
  return result("Degraded", message_of(status, { "Ready" }, "An earlier spec succeeded; this one has not run"))
elseif phase == "Succeeded" then
  return result("Healthy", message_of(status, { "Succeeded", "Ready" }, "The workload succeeded"))
elseif phase == "Running" then
  if is_ready then
    return result("Healthy", message_of(status, { "Ready" }, "The Ray cluster is ready"))
  end
  return result("Progressing", message_of(status, { "Ready" }, "Waiting for the Ray cluster to be ready"))
elseif phase == "Suspended" then
  return result("Suspended", message_of(status, { "Ready" }, "The workload is suspended"))
elseif phase == "Queued" then
  return result("Progressing", message_of(status, { "Admitted", "Queued", "Ready" }, "Waiting for Kueue admission"))
elseif phase == "Admitted" or phase == "Pending" then
  return result("Progressing", message_of(status, { "Ready" }, "Waiting for the workload to start"))
elseif phase == nil or phase == "" then
  if is_ready then
    return result("Healthy", message_of(status, { "Ready" }, "The Ray cluster is ready"))
  end
  return result("Progressing", "Waiting for the operator to set a phase")
end
return result("Unknown", "Unknown phase " .. tostring(phase))
